import AgentSettings
import Agent
import ArgumentParser
import Dispatch
import HomeAssistantLink
import Logging
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record what Home Assistant sends, in the format `replay` reads.",
        discussion: """
            Connects like `run` (HA_URL, HA_TOKEN / HA_TOKEN_FILE), asks Home Assistant for \
            what `run` asks for, and writes every message it receives (auth, the entity \
            registry, the printers' entities: their states, then their changes, pongs) to \
            FILE, one per line, exactly as received. Stops \
            after --duration seconds, or on Ctrl-C / SIGTERM. Share such a file to \
            reproduce a problem: `printbridge replay FILE`. It holds your entities' states, \
            never the access token.
            """
    )

    @Option(name: .long, help: "The file to write (replaced if it exists).")
    var out: String

    @Option(name: .long, help: "Stop after this many seconds (default: until interrupted).")
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
    }

    @OptionGroup var configOption: ConfigOption

    func run() async throws {
        let settings = try configOption.settings()
        let logger = try RunLog.bootstrap(settings)
        try settings.check([.homeAssistant])
        let (endpoint, token) = try settings.haConnection()
        let descriptor = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure.cannotCreate("cannot write \(out): \(String(cString: strerror(errno)))")
        }
        var file = LineWriter(descriptor: descriptor)
        defer {
            file.flush()
            close(descriptor)
        }
        // The printers `run` would watch, so HA sends what it sends `run`.
        let link = HomeAssistantLink(
            endpoint: endpoint, accessToken: token, caFile: settings.homeAssistant.caFile, tapsFrames: true,
            reader: HAFrameReader(matcher: settings.matcher))
        let signals = Self.stopOnSignals { link.stop() }
        defer { signals.forEach { $0.cancel() } }
        if let duration {
            DispatchQueue.global().asyncAfter(deadline: .now() + duration) { link.stop() }
        }
        logger.info("recording Home Assistant's messages", metadata: ["ha.url": "\(endpoint)", "record.file": "\(out)"])
        try RunCommand.start(link)
        var messages = 0
        for await event in link.events {
            switch event {
            case .received(let frame):
                file.write(Self.oneLine(frame))
                messages += 1
            default:
                LinkNews.log(event, endpoint: link.endpoint, logger)
            }
        }
        logger.info("recording ended", metadata: ["record.messages": .stringConvertible(messages), "record.file": "\(out)"])
    }

    /// The frame as one line: HA's compact JSON already is; anything with a raw
    /// newline is rewritten compactly.
    static func oneLine(_ frame: [UInt8]) -> String {
        guard frame.contains(0x0A) || frame.contains(0x0D) else { return String(decoding: frame, as: UTF8.self) }
        guard let json = try? JSONParser.parse(frame) else {
            return String(decoding: frame.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
        }
        return JSONText.encode(json)
    }

    /// Runs `stop` once on SIGTERM or SIGINT.
    static func stopOnSignals(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop() }
            source.resume()
            return source
        }
    }
}
