import ArgumentParser
import DeviceStore

#if canImport(Glibc)
import Glibc
#endif

/// Where the agent keeps its store, shared by `run` and `devices`.
enum StateDirectory {
    /// The state directory: STATE_DIR, else systemd's STATE_DIRECTORY, else /data
    /// inside a Home Assistant add-on, else ~/.local/state/printbridge (created).
    static func path() -> String {
        if let directory = StandardStreams.environment("STATE_DIR") { return directory }
        if let directory = StandardStreams.environment("STATE_DIRECTORY") {
            return String(directory.split(separator: ":").first ?? Substring(directory))
        }
        if StandardStreams.environment("SUPERVISOR_TOKEN") != nil { return "/data" }
        let base = StandardStreams.environment("XDG_STATE_HOME") ?? ((StandardStreams.environment("HOME") ?? ".") + "/.local/state")
        let directory = base + "/printbridge"
        var path = ""
        for part in directory.split(separator: "/", omittingEmptySubsequences: false) {
            path += (path.isEmpty && part.isEmpty ? "" : "/") + part
            if !path.isEmpty { mkdir(path, 0o700) }
        }
        return directory
    }

    static func openStore() throws -> DeviceStore {
        do { return try DeviceStore(directory: path()) } catch {
            throw CommandFailure.config("\(error)")
        }
    }

}
