import ArgumentParser
import SystemLibraries

struct PrintBridgeCommand: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "printbridge",
        abstract: "Watches 3D printers through Home Assistant and sends Apple push notifications.",
        discussion: """
            Exit codes: 0 ok; 64 usage error; 66 an input file could not be read, or no such device; \
            69 a push was not delivered; 71 the system refused a thread; 73 an output file could not be created; \
            78 configuration error (settings, devices file, state directory, key file).
            """,
        version: "printbridge \(version)\n\(SystemLibraries.summary)",
        subcommands: [RunCommand.self, ReplayCommand.self, RecordCommand.self, SendTestCommand.self, DevicesCommand.self, HistoryCommand.self, StatsCommand.self, NotificationsCommand.self, CheckConfigCommand.self, PairCommand.self, CertificateCommand.self, HealthCommand.self]
    )
}
