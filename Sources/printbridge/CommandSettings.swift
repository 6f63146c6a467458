import AgentSettings
import ArgumentParser
import HomeAssistantLink
import PrintBridgeCore

/// `--config FILE`, shared by the commands that read settings.
struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "Settings file (YAML; environment variables win). Default: $PRINTBRIDGE_CONFIG.")
    var config: String?

    /// The settings for this command, read once: `commandLine` (the
    /// command's own options) over the environment over `--config FILE`
    /// (or $PRINTBRIDGE_CONFIG) over systemd's credentials. A file that
    /// cannot be read or parsed stops the command (exit 78).
    func settings(commandLine: [String: String] = [:]) throws -> Settings {
        var sources = SettingSources.process(file: nil, commandLine: commandLine)
        if let path = config ?? sources.environment["PRINTBRIDGE_CONFIG"] {
            do { sources.file = try SettingsFile.load(path: path) } catch {
                throw CommandFailure.config("config file \(error)")
            }
        }
        return Settings(sources: sources)
    }
}

/// How commands stop on settings: exit 78 with the problem's line, its
/// settings named as the file names them.
extension Settings {
    /// Every problem of these parts on stderr; the command stops at the last.
    func check(_ sections: Set<Section>) throws {
        let found = problems(in: sections)
        guard let last = found.last else { return }
        for problem in found.dropLast() { StandardStreams.err("printbridge: \(line(for: problem))") }
        throw failure(last)
    }

    func failure(_ problem: SettingProblem) -> CommandFailure { .config(line(for: problem)) }

    /// Home Assistant's address and token, or exit 78 naming the one missing.
    func haConnection() throws -> (endpoint: HAEndpoint, token: String) {
        do { return try homeAssistant.connection() } catch { throw failure(error) }
    }

    /// The entity matcher: the built-in profiles and the printers mapped in the settings file.
    var matcher: EntityMatcher { EntityMatcher(mapped: printers) }
}
