#if canImport(Glibc)
import Glibc
#endif

/// The program's entry point. The command runs on Swift's cooperative
/// threads while the main thread only waits. An `async` main would have the
/// runtime end the main thread with `pthread_exit` instead, which unwinds its
/// stack through the unwind tables and keeps ~0.3 MB of them resident for
/// the life of the daemon. Nothing here runs on the main actor.
@main
enum Entry {
    static func main() {
        Task.detached {
            await PrintBridgeCommand.main()
            exit(0)  // what the runtime does when an async main returns
        }
        while true { pause() }
    }
}
