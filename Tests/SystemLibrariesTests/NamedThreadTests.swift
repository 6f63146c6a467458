import Foundation
import NamedThreads
import Synchronization
import Testing

/// The agent's threads carry their names (what `top -H` shows) and are joined.
@Suite struct NamedThreadTests {
    /// The name the thread had while it ran, read from /proc; joined twice
    /// (the second join returns at once).
    static func nameSeen(starting name: String) throws -> String? {
        let seen = Mutex<String?>(nil)
        let thread = try NamedThread(name) {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.withLock { $0 = comm?.trimmingCharacters(in: .newlines) }
        }
        thread.join()
        thread.join()
        return seen.withLock { $0 }
    }

    @Test func aThreadRunsUnderItsNameAndIsJoined() throws {
        #expect(try Self.nameSeen(starting: "pb-test-thread") == "pb-test-thread")
    }

    @Test func aLongNameIsCutToWhatLinuxKeeps() throws {
        #expect(try Self.nameSeen(starting: "pb-a-name-longer-than-fifteen-bytes") == "pb-a-name-longe")
    }
}
