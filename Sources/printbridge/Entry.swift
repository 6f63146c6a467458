#if canImport(Glibc)
import Glibc
#endif

/// The program's entry point. The command runs on Swift's cooperative
/// threads while the main thread only waits. An `async` main would have the
/// runtime end the main thread with `pthread_exit` instead, which unwinds its
/// stack through the unwind tables and keeps them and the unwinder (~0.6 MB)
/// resident for the life of the daemon. Nothing here runs on the main actor.
@main
enum Entry {
    static func main() {
        FreedMemory.configure()  // before any other thread allocates
        Task.detached {
            await PrintBridgeCommand.main()
            exit(0)  // what the runtime does when an async main returns
        }
        while true { pause() }
    }
}
