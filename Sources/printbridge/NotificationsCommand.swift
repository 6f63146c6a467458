import AgentSettings
import ArgumentParser
import ControlAPI
import DeviceStore
import PrintBridgeCore

/// `printbridge notifications`: the alerts sent to the phones, newest first,
/// as the app's history shows them.
struct NotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Show the alerts sent to the phones: time, printer, title, body and outcome (reads the store, no daemon needed).",
        discussion: """
            The store keeps the alerts sent to each phone for NOTIFICATION_HISTORY_DAYS (30) days; \
            the app reads the same list from GET /api/notifications. Outcomes: pending (APNs has \
            not answered yet), delivered, rejected, expired. Times are local. The store is in \
            STATE_DIR (see `printbridge run --help`); device ids are in `printbridge devices list`.
            """)

    @Option(name: .long, help: "Only this phone's alerts (its device id).")
    var device: String?

    @Option(name: .long, help: "Only the alerts about this printer (its prefix).")
    var printer: String?

    @Option(name: .long, help: "How many alerts to show (per phone without --device).")
    var limit: Int = 20

    @Option(name: .long, help: "text or json (one JSON object per line, as GET /api/notifications lists them)")
    var format: Format = .text

    @Flag(name: .long, help: "The same as --format json.")
    var json = false

    enum Format: String, ExpressibleByArgument { case text, json }

    @OptionGroup var configOption: ConfigOption

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let store = try StateDirectory.openStore(try configOption.settings())
        var shown: [(device: Device?, notifications: [SentNotification])] = []
        do {
            let devices = try store.devices()
            if let device {
                guard try store.hasDevice(id: device) else {
                    throw CommandFailure.noInput("no device \(device); `printbridge devices list` shows their ids")
                }
                let page = try store.notifications(device: device, printer: printer, limit: limit)
                shown.append((devices.first { $0.id == device }, page.notifications))
            } else {
                for known in devices {
                    let page = try store.notifications(device: known.id, printer: printer, limit: limit)
                    if !page.notifications.isEmpty { shown.append((known, page.notifications)) }
                }
            }
        } catch let error as DeviceStore.Error {
            throw CommandFailure.config("\(error)")
        }
        let asJSON = json || format == .json
        var output = LineWriter.standardOutput()
        defer { output.flush() }
        for (index, (device, notifications)) in shown.enumerated() {
            if !asJSON, self.device == nil {
                if index > 0 { output.write("") }
                output.write(Self.heading(device))
            }
            for notification in notifications {
                output.write(asJSON ? APIJSON.notification(notification, now: SystemClock().now()) : Self.line(notification))
            }
        }
        if shown.allSatisfy(\.notifications.isEmpty), !asJSON {
            StandardStreams.err(printer.map { "no alerts recorded for \($0)" } ?? "no alerts recorded")
        }
    }

    /// "phone 0f8e4a1c-… (X1C, token abcdef…1234)"
    static func heading(_ device: Device?) -> String {
        guard let device else { return "phone" }
        var details = [String]()
        if let name = device.printerName { details.append(name) }
        details.append("token \(TokenFormat.shortened(device.apnsToken))")
        return "phone \(device.id) (\(details.joined(separator: ", ")))"
    }

    /// "2026-11-23 14:02  x1c_…  complete  delivered  Print Complete! 🎉 — benchy.3mf finished on X1C"
    static func line(_ notification: SentNotification) -> String {
        var parts = [
            HistoryCommand.localTime(notification.createdAt), notification.printer, notification.event.rawValue,
            notification.outcome.rawValue, "\(notification.title) — \(notification.body)",
        ]
        if let reason = notification.reason { parts.append("(\(reason))") }
        return parts.joined(separator: "  ")
    }
}
