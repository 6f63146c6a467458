import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// The program's entry point. Every command, `run` included, runs on Swift's
/// default executor (libdispatch's threads on Linux) while the main thread
/// only waits. An `async` main would have the runtime end the main thread
/// with `pthread_exit` instead, which unwinds its stack through the unwind
/// tables and keeps them and the unwinder (~0.6 MB) resident for the life of
/// the daemon. Nothing here runs on the main actor.
@main
enum Entry {
    static func main() {
        FreedMemory.configure()  // before any other thread allocates
        let command: any ParsableCommand
        do { command = try PrintBridgeCommand.parseAsRoot() } catch { PrintBridgeCommand.exit(withError: error) }
        if command is RunCommand { SignalService.block() }  // before any other thread starts
        Task.detached {
            await run(command)
            exit(0)  // what the runtime does when an async main returns
        }
        while true { pause() }
    }

    /// Runs the command; the one place a `CommandFailure` becomes its line
    /// on stderr and its exit code.
    private static func run(_ command: any ParsableCommand) async {
        do {
            var command = command
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            if let message = failure.message { StandardStreams.err("printbridge: \(message)") }
            PrintBridgeCommand.exit(withError: failure.exitCode)
        } catch {
            PrintBridgeCommand.exit(withError: error)
        }
    }
}
