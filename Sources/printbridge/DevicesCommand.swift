import AgentSettings
import ArgumentParser
import DeviceStore
import ControlAPI
import PrintBridgeCore

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List and change the registered phones without the app (works on the store, no daemon needed).",
        discussion: "The store is in STATE_DIR (see `printbridge run --help`).",
        subcommands: [List.self, Add.self, Remove.self, Revoke.self, Prefs.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Show every registered device (tokens shortened).")

        @Option(name: .long, help: "text or json")
        var format: Format = .text

        enum Format: String, ExpressibleByArgument { case text, json }

        @OptionGroup var configOption: ConfigOption

        func run() throws {
            let devices = try DevicesCommand.load(try configOption.settings())
            var output = LineWriter.standardOutput()
            defer { output.flush() }
            for device in devices {
                let printers = device.printerPrefixes.isEmpty ? ["all printers"] : device.printerPrefixes.sorted()
                let preferences = device.preferences
                let switches = NotificationPreferences.switches.map { ($0.name, preferences[keyPath: $0.keyPath]) }
                switch format {
                case .text:
                    // The first layer's switch is off by default: said when on, not when off.
                    let off = switches.filter { !$0.1 && $0.0 != "onFirstLayer" }
                        .map { $0.0 == "notificationsEnabled" ? "notifications" : $0.0 }
                    output.write(
                        "\(device.id)  \(TokenFormat.shortened(device.apnsToken))  \(printers.joined(separator: ", "))"
                            + (device.isDisabled ? "  DISABLED" : "")
                            + (off.isEmpty ? "" : "  off: \(off.joined(separator: ", "))")
                            + (preferences.onFirstLayer ? "  first layer on" : "")
                            + (device.activityTokens.isEmpty ? "" : "  live activities: \(device.activityTokens.keys.sorted().joined(separator: ", "))")
                            + (device.pushToStartToken == nil ? "" : "  push-to-start")
                            + (device.language.map { "  language: \($0)" } ?? "")
                            + (preferences.schedule == AlertSchedule() ? "" : "  \(preferences.schedule.summary)"))
                case .json:
                    output.write(JSONText.object([
                        ("id", JSONText.quoted(device.id)),
                        ("device", JSONText.quoted(TokenFormat.shortened(device.apnsToken))),
                        ("printers", "[" + device.printerPrefixes.sorted().map(JSONText.quoted).joined(separator: ",") + "]"),
                        ("disabled", device.isDisabled ? "true" : "false"),
                        ("settings", JSONText.object(switches.map { ($0.0, $0.1 ? "true" : "false") })),
                        ("liveActivities", "[" + device.activityTokens.keys.sorted().map(JSONText.quoted).joined(separator: ",") + "]"),
                        ("pushToStart", device.pushToStartToken == nil ? "false" : "true"),
                        ("language", device.language.map(JSONText.quoted) ?? "null"),
                        ("schedule", preferences.schedule.json),
                    ]))
                }
            }
            if devices.isEmpty, format == .text { StandardStreams.err("no devices registered") }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Register a phone by its APNs device token (or update the one with that token).")

        @Option(name: .long, help: "The APNs device token (hex).")
        var token: String

        @Option(name: .long, help: "A printer prefix to follow (repeat for several): exactly these. None: every printer for a new device, the same printers for a known one.")
        var printer: [String] = []

        @Option(name: .long, help: "The name to show for the printer in alerts.")
        var name: String?

        @Option(name: .long, help: "The language of this phone's alerts (en, de, fr, es; other languages get the language setting's).")
        var language: String?

        func validate() throws {
            guard TokenFormat.isPlausibleToken(token) else {
                throw ValidationError("--token must be a hex APNs device token (64 or more hex digits)")
            }
            if let language, !Catalog.isLanguageTag(language) {
                throw ValidationError("--language must be a language tag such as de or fr-CA")
            }
        }

        @OptionGroup var configOption: ConfigOption

        func run() throws {
            let store = try StateDirectory.openStore(try configOption.settings())
            try DevicesCommand.storeCall {
                let registration = try store.register(
                    apnsToken: token, haURL: nil, printerPrefix: nil, printerName: name,
                    printerPrefixes: printer.isEmpty ? nil : printer, language: language)
                StandardStreams.out("\(registration.deviceID) \(registration.created ? "registered" : "updated")")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Forget a device and its tokens.")

        @Argument(help: "The device id (see `printbridge devices list`).")
        var id: String

        @OptionGroup var configOption: ConfigOption

        func run() throws {
            let store = try StateDirectory.openStore(try configOption.settings())
            let removed = try DevicesCommand.storeCall { try store.removeDevice(id: id) }
            guard removed else {
                throw CommandFailure.noInput("no device \(id)")
            }
            StandardStreams.out("\(id) removed")
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Stop a phone's own credential working, at once (its alerts go on; remove the device to stop them).")

        @Argument(help: "The device id (see `printbridge devices list`) or the credential's id.")
        var id: String

        @OptionGroup var configOption: ConfigOption

        func run() throws {
            let store = try StateDirectory.openStore(try configOption.settings())
            let revoked = try DevicesCommand.storeCall { try store.revokeCredentials(of: id) }
            guard revoked > 0 else {
                throw CommandFailure.noInput("no live credential for \(id)")
            }
            StandardStreams.out("\(id): \(revoked) credential(s) revoked; the phone must pair again (printbridge pair)")
        }
    }

    struct Prefs: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prefs",
            abstract: "Change which notifications a device gets and when (only the switches and parts given change).")

        @Argument(help: "The device id.")
        var id: String

        @Option(name: .long) var notifications: Bool?
        @Option(name: .customLong("on-start")) var onStart: Bool?
        @Option(name: .customLong("on-complete")) var onComplete: Bool?
        @Option(name: .customLong("on-failed")) var onFailed: Bool?
        @Option(name: .customLong("on-paused")) var onPaused: Bool?
        @Option(name: .customLong("on-milestone")) var onMilestone: Bool?
        @Option(name: .customLong("on-printer-error")) var onPrinterError: Bool?
        @Option(name: .customLong("on-bed-cooled")) var onBedCooled: Bool?
        @Option(name: .customLong("background-refresh"), help: "A silent push when a print ends, so the app refreshes its history.")
        var backgroundRefresh: Bool?
        @Option(name: .long, help: "A picture of the print in complete, failed, paused and printer-error alerts.")
        var snapshots: Bool?
        @Option(name: .customLong("on-first-layer"), help: "\"First Layer Done\" with a picture (off by default).")
        var onFirstLayer: Bool?
        @Option(name: .customLong("quiet-hours"), help: "Quiet hours as START-END (22:00-07:00), or off.")
        var quietHours: String?
        @Option(name: .customLong("time-zone"), help: "The quiet hours' time zone (an IANA name; default: this machine's).")
        var timeZone: String?
        @Option(name: .long, help: "Whether failures, printer errors and a printer gone offline break through quiet hours (default true).")
        var breakthrough: Bool?
        @Option(name: .long, help: "The phone's milestones: 25,50,75, every:10, or default (the agent's MILESTONES).")
        var milestones: String?
        @Option(name: .customLong("minutes-left"), help: "Minutes left at which to tell the phone once a print; 0: off.")
        var minutesLeft: Int?
        @Option(name: .customLong("retell-after"), help: "Minutes before an unopened failure or printer error is told again; 0: never.")
        var retellAfter: Int?

        @OptionGroup var configOption: ConfigOption

        func run() throws {
            let store = try StateDirectory.openStore(try configOption.settings())
            var patch = DeviceStore.PreferencesPatch(
                notificationsEnabled: notifications, onStart: onStart, onComplete: onComplete, onFailed: onFailed,
                onPaused: onPaused, onMilestone: onMilestone, onPrinterError: onPrinterError, onBedCooled: onBedCooled,
                backgroundRefresh: backgroundRefresh, snapshots: snapshots, onFirstLayer: onFirstLayer)
            // The options as the settings PATCH's keys: the API's checks and words.
            var body: [String: JSONValue] = [:]
            if let quietHours {
                if quietHours == "off" {
                    body["quietHours"] = .null
                } else {
                    let ends = quietHours.split(separator: "-", maxSplits: 1).map(String.init)
                    var quiet: [String: JSONValue] = [
                        "start": .string(ends.first ?? ""), "end": .string(ends.count > 1 ? ends[1] : ""),
                        "timeZone": .string(timeZone ?? StatisticsRequest.machineZone() ?? "UTC"),
                    ]
                    if let breakthrough { quiet["breakthrough"] = .bool(breakthrough) }
                    body["quietHours"] = .object(quiet)
                }
            } else if timeZone != nil || breakthrough != nil {
                throw ValidationError("--time-zone and --breakthrough go with --quiet-hours")
            }
            if let milestones {
                if milestones == "default" {
                    body["milestones"] = .null
                } else if milestones.hasPrefix("every:") {
                    body["milestones"] = .object(["every": Int(milestones.dropFirst(6)).map { .number(Double($0)) } ?? .null])
                } else {
                    body["milestones"] = .array(milestones.split(separator: ",").map { Int($0).map { .number(Double($0)) } ?? .null })
                }
            }
            if let minutesLeft { body["minutesLeft"] = .number(Double(minutesLeft)) }
            if let retellAfter { body["retellAfterMinutes"] = .number(Double(retellAfter)) }
            var problems: [String: [String]] = [:]
            patch.schedule = AlertSchedule.patch(body, problems: &problems)
            if !problems.isEmpty {
                throw ValidationError(problems.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.joined(separator: "; "))" }
                    .joined(separator: "\n"))
            }
            let found = try DevicesCommand.storeCall { try store.updatePreferences(deviceID: id, patch) }
            guard found else {
                throw CommandFailure.noInput("no device \(id)")
            }
            StandardStreams.out("\(id) updated")
        }
    }

    static func load(_ settings: Settings) throws -> [Device] {
        let store = try StateDirectory.openStore(settings)
        return try storeCall { try store.devices() }
    }

    /// Runs a store call; a store failure is one line on stderr and exit 78.
    static func storeCall<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DeviceStore.Error {
            throw CommandFailure.config("\(error)")
        }
    }
}
