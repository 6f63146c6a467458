import AgentSettings
import DeviceStore

#if canImport(Glibc)
import Glibc
#endif

/// Where the agent keeps its store, shared by `run`, `devices`, `history` and `check-config`.
enum StateDirectory {
    /// The state directory; the default one under the home directory is created.
    static func path(_ settings: Settings) -> String {
        let location = settings.state
        if location.isDefault {
            var path = ""
            for part in location.path.split(separator: "/", omittingEmptySubsequences: false) {
                path += (path.isEmpty && part.isEmpty ? "" : "/") + part
                if !path.isEmpty { mkdir(path, 0o700) }
            }
        }
        return location.path
    }

    static func openStore(_ settings: Settings) throws -> DeviceStore {
        do { return try DeviceStore(directory: path(settings)) } catch {
            throw CommandFailure.config("\(error)")
        }
    }
}
