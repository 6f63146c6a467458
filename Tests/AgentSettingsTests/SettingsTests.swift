import AgentSettings
import APNsClient
import HomeAssistantLink
import PrintBridgeCore
import Testing

/// Settings read in-process from sources the test gives: no environment,
/// no files on disk, no binary.
@Suite struct SettingsTests {
    /// Files the sources can read, by path.
    static func sources(
        commandLine: [String: String] = [:], environment: [String: String] = [:], file: String? = nil,
        files: [String: String] = [:]
    ) throws -> SettingSources {
        let parsed = try file.map { text throws in try SettingsFile(path: "/etc/printbridge.yaml", text: text) }
        return SettingSources(commandLine: commandLine, environment: environment, file: parsed, read: { files[$0] })
    }

    static func settings(
        commandLine: [String: String] = [:], environment: [String: String] = [:], file: String? = nil,
        files: [String: String] = [:]
    ) throws -> Settings {
        Settings(sources: try sources(commandLine: commandLine, environment: environment, file: file, files: files))
    }

    @Test func defaultsWhenNothingIsSet() throws {
        let settings = try Self.settings(environment: ["HOME": "/home/pi"])
        #expect(settings.problems.isEmpty)
        #expect(settings.homeAssistant.endpoint == nil && settings.homeAssistant.token == nil)
        #expect(settings.homeAssistant.session.pingInterval == 30 && settings.homeAssistant.session.pongTimeout == 10)
        #expect(settings.homeAssistant.maximumMessageBytes == 64 << 20)
        #expect(settings.api.listen == .init(host: "0.0.0.0", port: 3000))
        #expect(settings.delivery.retryMaximum == 30 && settings.delivery.healthGrace == 60 && !settings.delivery.dryRun)
        #expect(settings.planner.milestones == PlannerConfiguration().milestones)
        #expect(!settings.apns.isConfigured)
        #expect(settings.state.path == "/home/pi/.local/state/printbridge" && settings.state.isDefault)
        #expect(settings.log.level == .info)
    }

    /// Command line over environment over file over systemd credentials,
    /// each value remembered with where it came from.
    @Test func eachSourceWinsOverTheNext() throws {
        let settings = try Self.settings(
            commandLine: ["MILESTONES": "10"],
            environment: ["MILESTONES": "20", "LOG_LEVEL": "debug", "CREDENTIALS_DIRECTORY": "/run/credentials/pb"],
            file: "milestones: 30\nlog_level: error\nha_url: http://ha.local:8123\n",
            files: ["/run/credentials/pb/ha-token": "from-credentials\n"])
        #expect(settings.values["MILESTONES"] == .init(text: "10", source: .commandLine))
        #expect(settings.values["LOG_LEVEL"] == .init(text: "debug", source: .environment))
        #expect(settings.values["HA_URL"] == .init(text: "http://ha.local:8123", source: .file))
        #expect(settings.values["HA_TOKEN_FILE"] == .init(text: "/run/credentials/pb/ha-token", source: .credentials))
        #expect(settings.planner.milestones == [10])
        #expect(settings.log.level == .debug)
        #expect(settings.homeAssistant.endpoint?.host == "ha.local")
        #expect(settings.homeAssistant.token == "from-credentials")
        #expect(settings.problems.isEmpty, "\(settings.problems)")
    }

    /// A blank credential is systemd's placeholder for a file not there yet;
    /// a token set in the environment wins over the credential.
    @Test func blankOrOverriddenCredentialsAreNotUsed() throws {
        let files = ["/run/c/ha-token": "\n", "/run/c/api-token": "api-from-credential"]
        let blank = try Self.settings(environment: ["CREDENTIALS_DIRECTORY": "/run/c", "API_TOKEN": "api-from-env"], files: files)
        #expect(blank.values["HA_TOKEN_FILE"] == nil)
        #expect(blank.values["API_TOKEN_FILE"] == nil)
        #expect(blank.api.token == "api-from-env")
        #expect(blank.homeAssistant.token == nil)
    }

    /// Every bad value is a problem of its own, in the order check-config
    /// lists settings, each naming the setting; the good values still apply.
    @Test func everyBadValueIsAProblem() throws {
        let settings = try Self.settings(
            environment: ["HA_PING_INTERVAL": "-1", "API_LISTEN": "localhost:3000", "DRY_RUN": "maybe"],
            file: "ha_url: ftp://ha\nlog_level: loud\nmilestones: 25,fifty\nha_pong_timeout: 4\n")
        #expect(settings.problems.map(\.setting) == [
            "HA_URL", "HA_PING_INTERVAL", "API_LISTEN", "DRY_RUN", "LOG_LEVEL", "MILESTONES",
        ])
        #expect(settings.problems.map(\.section) == [.homeAssistant, .homeAssistant, .api, .delivery, .log, .planner])
        #expect(settings.homeAssistant.session.pongTimeout == 4)
        #expect(settings.problems(in: [.planner]).map(\.message)
            == ["MILESTONES must be whole percentages separated by commas, e.g. 25,50,75"])
        #expect(settings.problems(in: [.api]).first?.message
            == "API_LISTEN: localhost is not an IP address to listen on (for localhost write 127.0.0.1:3000)")
    }

    /// How long each print is kept one by one before its day is rolled up:
    /// for good unless said, whole days only.
    @Test func printsAreKeptForGoodUnlessADayCountIsGiven() throws {
        #expect(try Self.settings().delivery.printHistoryDays == 0)
        #expect(try Self.settings().delivery.printRetention == 0)
        let file = try Self.settings(file: "print_history_days: 365\n")
        #expect(file.delivery.printHistoryDays == 365 && file.delivery.printRetention == 365 * 86400)
        for bad in ["-1", "1.5", "a year", "36501"] {
            let settings = try Self.settings(environment: ["PRINT_HISTORY_DAYS": bad])
            #expect(settings.problems(in: [.delivery]).map(\.message) == [
                "PRINT_HISTORY_DAYS must be a whole number of days from 1 to 36500, or 0 to keep every print",
            ], "\(bad)")
            #expect(settings.delivery.printHistoryDays == 0)
        }
    }

    /// How long the phones' notification history is kept: 30 days unless
    /// said, 0 for none, whole days only.
    @Test func theNotificationHistoryIsKeptForWholeDays() throws {
        #expect(try Self.settings().delivery.notificationHistoryDays == 30)
        let file = try Self.settings(file: "notification_history_days: 7\n")
        #expect(file.delivery.notificationHistoryDays == 7 && file.delivery.notificationRetention == 7 * 86400)
        #expect(try Self.settings(environment: ["NOTIFICATION_HISTORY_DAYS": "0"]).delivery.notificationRetention == 0)
        for bad in ["-1", "1.5", "a month", "3651"] {
            let settings = try Self.settings(environment: ["NOTIFICATION_HISTORY_DAYS": bad])
            #expect(settings.problems(in: [.delivery]).map(\.message) == [
                "NOTIFICATION_HISTORY_DAYS must be a whole number of days from 0 (keep none) to 3650",
            ], "\(bad)")
            #expect(settings.delivery.notificationHistoryDays == 30)
        }
    }

    /// A value from the file is named by its key, line and column; one from
    /// the environment keeps its variable's name.
    @Test func problemsNameTheFilesKeyLineAndColumn() throws {
        let settings = try Self.settings(
            environment: ["HA_PING_INTERVAL": "soon"],
            file: "# comment\nha_url: http://h:8123\napi_listen: nowhere\nha_ping_interval: 5\n")
        let lines = settings.problems.map { settings.line(for: $0) }
        #expect(lines == [
            "HA_PING_INTERVAL must be a positive number",
            "api_listen (/etc/printbridge.yaml:3:13) must be host:port (e.g. 0.0.0.0:3000) or off",
        ])
        // A name inside a longer one is left alone.
        #expect(settings.naming("API_LISTEN_X and API_LISTEN") == "API_LISTEN_X and api_listen (/etc/printbridge.yaml:3:13)")
    }

    @Test func theHomeAssistantTokenComesFromTheFileTheSupervisorOrNowhere() throws {
        let fromFile = try Self.settings(
            environment: ["HA_URL": "http://h:8123", "HA_TOKEN_FILE": "/t"], files: ["/t": "\nfile-token\nsecond"])
        #expect(try fromFile.homeAssistant.connection().token == "file-token")
        let unreadable = try Self.settings(environment: ["HA_URL": "http://h:8123", "HA_TOKEN_FILE": "/nope"])
        #expect(unreadable.problems.map(\.message) == ["HA_TOKEN_FILE /nope cannot be read"])
        let empty = try Self.settings(environment: ["HA_URL": "http://h:8123", "HA_TOKEN_FILE": "/e"], files: ["/e": "\n\n"])
        #expect(empty.problems.map(\.message) == ["HA_TOKEN_FILE /e is empty"])
        // Inside an add-on the Supervisor's token is for the Supervisor's proxy only.
        let addOn = ["SUPERVISOR_TOKEN": "sup-token", "SUPERVISOR_API": "http://supervisor:80"]
        let proxied = try Self.settings(environment: addOn.merging(["HA_URL": "ws://supervisor/core/websocket"]) { $1 })
        #expect(try proxied.homeAssistant.connection().token == "sup-token")
        let elsewhere = try Self.settings(environment: addOn.merging(["HA_URL": "http://other:8123"]) { $1 })
        #expect(throws: SettingProblem.self) { try elsewhere.homeAssistant.connection() }
        #expect(elsewhere.state.path == "/data", "an add-on keeps its state in /data")
        #expect(elsewhere.api.trustsIngressProxy)
    }

    @Test func missingRequiredSettingsSayWhatToSet() throws {
        let none = try Self.settings(environment: ["CREDENTIALS_DIRECTORY": "/run/c"])
        #expect(throws: SettingProblem(.homeAssistant, "HA_URL", "HA_URL not set (e.g. http://homeassistant.local:8123)")) {
            try none.homeAssistant.connection()
        }
        let noToken = try Self.settings(environment: ["HA_URL": "http://h:8123", "CREDENTIALS_DIRECTORY": "/run/c"])
        let problem = try #require(throws: SettingProblem.self) { try noToken.homeAssistant.connection() }
        #expect(problem.message.hasSuffix("(the systemd credential ha-token is missing or empty)"), "\(problem)")
        #expect(throws: SettingProblem.self) { try noToken.api.address(allowWithoutToken: false) }
        #expect(try noToken.api.address(allowWithoutToken: true) == .init(host: "0.0.0.0", port: 3000))
        let off = try Self.settings(environment: ["API_LISTEN": "OFF"])
        #expect(try off.api.address(allowWithoutToken: false) == nil)
    }

    @Test func apnsSettingsAreOneConfigurationOrOneProblem() throws {
        let apns = ["APNS_TEAM_ID": "ABCDE12345", "APNS_KEY_ID": "KEY1234567", "APNS_KEY_PATH": "/k.p8",
                    "APNS_BUNDLE_ID": "com.example.PrinterMonitor"]
        let good = try Self.settings(environment: apns.merging(["APNS_PRODUCTION": "yes"]) { $1 })
        let configuration = try good.apns.configuration.get()
        #expect(configuration.environment == .production && configuration.teamID == "ABCDE12345")
        #expect(good.apns.isConfigured)
        #expect(good.planner.bundleID == "com.example.PrinterMonitor")
        let bad = try Self.settings(environment: apns.merging(["APNS_TEAM_ID": "short"]) { $1 })
        #expect(throws: SettingProblem.self) { try bad.apns.configuration.get() }
        // A bundle id alone is the planner's, not a sign APNs is meant.
        let bundleOnly = try Self.settings(environment: ["APNS_BUNDLE_ID": "com.example.App"])
        #expect(!bundleOnly.apns.isConfigured)
    }

    /// Planner values that parse but cannot work together are problems too.
    @Test func plannerValuesAreChecked() throws {
        let settings = try Self.settings(environment: [
            "MILESTONES": "25,150", "ALERT_LANGUAGE": "it", "BED_COOLED_BELOW": "warm", "LIVE_ACTIVITY_INTERVAL": "12",
        ])
        #expect(settings.problems(in: [.planner]).map(\.message) == [
            "BED_COOLED_BELOW must be a temperature in °C", "milestone 150 is outside 1–99",
            "alert language \"it\" has no texts; languages: de, en, es, fr",
        ])
        #expect(settings.planner.liveActivityInterval == 12)
    }

    /// SIGHUP's comparison: the settings whose text changed, and whether each applies live.
    @Test func rereadingComparesTwoSettings() throws {
        let before = try Self.settings(environment: ["HA_URL": "http://h:8123"], file: "milestones: 50\nha_ping_interval: 30\n")
        let after = try Self.settings(
            environment: ["HA_URL": "http://h:8123"], file: "milestones: 10,90\nha_ping_interval: 5\nlog_level: info\n")
        let changed = before.changes(to: after)
        #expect(changed.map(\.name) == ["HA_PING_INTERVAL", "LOG_LEVEL", "MILESTONES"])
        #expect(changed.filter(\.appliesLive).map(\.name) == ["MILESTONES"])
        #expect(before.changes(to: before).isEmpty)
        #expect(after.planner.milestones == [10, 90] && after.homeAssistant.session.pingInterval == 5)
    }

    @Test func secretsAreRedactedWhereverTheyAppear() throws {
        let settings = try Self.settings(
            environment: ["HA_URL": "http://owner:url-password-321@h:8123", "API_TOKEN": "api-secret-654",
                          "HA_TOKEN_FILE": "/t", "LOG_LEVEL": "api-secret-654"],
            files: ["/t": "file-held-token-789\n"])
        let redacted = Redactor(settings)
        #expect(redacted("a url-password-321 b api-secret-654 c file-held-token-789") == "a <redacted> b <redacted> c <redacted>")
        #expect(redacted("nothing secret") == "nothing secret")
    }

    @Test func aSettingsFileIsStrict() throws {
        #expect(throws: SettingsFile.ParseError.self) { try SettingsFile(path: "f.yaml", text: "bogus: 1\n") }
        #expect(throws: SettingsFile.ParseError.self) { try SettingsFile(path: "f.yaml", text: "ha_url: a\nha_url: b\n") }
        let unreadable = #expect(throws: SettingsFile.ParseError.self) {
            try SettingsFile.load(path: "/missing.yaml", read: { _ in nil })
        }
        #expect(unreadable?.description == "/missing.yaml: cannot be read")
    }
}
