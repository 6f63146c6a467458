import AgentSettings
import PrintBridgeCore
import SettingsYAML
import Testing
import Yams

/// The settings file as YAML: what YAML users write reads as they mean it,
/// and every mistake names its line and column.
@Suite struct SettingsFileTests {
    func read(_ text: String) throws(SettingsFileError) -> SettingsFile {
        try SettingsFile(path: "s.yaml", text: text)
    }

    func problem(_ text: String) -> String? {
        do { _ = try read(text); return nil } catch { return error.description }
    }

    @Test func scalarsAreTextAsWritten() throws {
        let file = try read("""
            ---
            ha_url: "http://h:8123/a\\u00e9"    # double quotes, an escape
            ha_token: 'it''s # no comment'       # single quotes
            api_listen: 0.0.0.0:3000             # plain, with colons
            ha_ping_interval: 30
            dry_run: true
            api_tls: off
            log_level: !!str info
            ...
            """)
        #expect(file.values == [
            "HA_URL": "http://h:8123/aé", "HA_TOKEN": "it's # no comment", "API_LISTEN": "0.0.0.0:3000",
            "HA_PING_INTERVAL": "30", "DRY_RUN": "true", "API_TLS": "off", "LOG_LEVEL": "info",
        ])
        #expect(file.positions["HA_URL"] == SettingsPosition(line: 2, column: 9))
        #expect(file.positions["API_LISTEN"] == SettingsPosition(line: 4, column: 13))
    }

    /// `|` and `>` as YAML reads them, without the last line break (no
    /// setting's value ends in one): `|-` and `>-` alike, and a quoted
    /// value that ends in `\n` too.
    @Test func blockScalars() throws {
        let file = try read("""
            apns_bundle_id: >
              com.samduncan.
              PrinterMonitor
            api_trusted_networks: |-
              192.168.1.0/24
              10.0.0.0/8
            ha_url: >-
              http://homeassistant.local:8123
            api_token: "token\\n\\n"
            """)
        #expect(file.values["API_TOKEN"] == "token")
        #expect(file.values["APNS_BUNDLE_ID"] == "com.samduncan. PrinterMonitor")
        #expect(file.values["API_TRUSTED_NETWORKS"] == "192.168.1.0/24\n10.0.0.0/8")
        #expect(file.values["HA_URL"] == "http://homeassistant.local:8123")
        #expect(file.positions["APNS_BUNDLE_ID"] == SettingsPosition(line: 1, column: 17))
    }

    /// The settings that take several values take a YAML list too, block or
    /// flow, joined with commas as the environment writes them.
    @Test func listsWhereASettingTakesSeveral() throws {
        let file = try read("""
            milestones: [25, 50, 75]
            api_trusted_networks:
              - 192.168.1.0/24
              - "fd00::/8"
            api_ingress_proxy: [172.30.32.2]
            """)
        #expect(file.values["MILESTONES"] == "25,50,75")
        #expect(file.values["API_TRUSTED_NETWORKS"] == "192.168.1.0/24,fd00::/8")
        #expect(file.values["API_INGRESS_PROXY"] == "172.30.32.2")
        let settings = Settings(sources: SettingSources(environment: [:], file: file))
        #expect(settings.planner.milestones == [25, 50, 75])
        #expect(settings.problems.isEmpty, "\(settings.problems)")
        #expect(settings.api.trustedNetworksText == "192.168.1.0/24,fd00::/8")
    }

    /// Anchors and aliases, and merge keys (`<<`), which Yams' Node API
    /// leaves as keys and the reader applies: own keys win over merged
    /// ones, an earlier merged mapping over a later one.
    @Test func anchorsAliasesAndMergeKeys() throws {
        let file = try read("""
            live_activity_interval: &interval 30
            start_settle: *interval
            printers:
              ender3:
                <<: [&octoprint {profile: octoprint, states: {Done: complete}}, {profile: moonraker, camera: camera.shop}]
                status: sensor.ender3_state
              ender5:
                <<: *octoprint
                profile: moonraker
                status: sensor.ender5_state
            """)
        #expect(file.values["LIVE_ACTIVITY_INTERVAL"] == "30" && file.values["START_SETTLE"] == "30")
        #expect(file.positions["START_SETTLE"] == SettingsPosition(line: 1, column: 25), "an alias's value is where its anchor is")
        let ender3 = try #require(file.printers.first)
        #expect(ender3.profile.title == "OctoPrint (Home Assistant core), states mapped")
        #expect(ender3.camera == "camera.shop")
        #expect(ender3.profile.status(raw: "Done") == .complete)
        let ender5 = try #require(file.printers.last)
        #expect(ender5.profile.title.hasPrefix("Moonraker") && ender5.camera == nil)
        #expect(ender5.profile.status(raw: "Done") == .complete)
    }

    /// A Home Assistant user's file: a document start, comments, quoting,
    /// anchors, multi-line values and the printers as a list; Yams' own
    /// serialisation of it reads the same.
    @Test func aHomeAssistantStyleFileAndItsReEmission() throws {
        let text = """
            # PrintBridge, written as configuration.yaml is
            ---
            ha_url: "http://homeassistant.local:8123"
            ha_token_file: '/etc/printbridge/ha-token'
            api_listen: 0.0.0.0:3000
            api_trusted_networks:
              - 192.168.1.0/24     # the house
              - "fd00::/8"
            milestones: [25, 50, 75]
            live_activity_interval: &every 30
            start_settle: *every
            apns_bundle_id: >-
              com.samduncan.PrinterMonitor
            dry_run: yes
            printers:
              - name: ender3
                <<: &octoprint
                  profile: octoprint
                  states:
                    "Printing from USB": running
                    Done: complete
                status: sensor.ender3_state
                progress: sensor.ender3_progress
                file_name: |
                  sensor.ender3_file
              - name: ender5
                <<: *octoprint
                status: sensor.ender5_state
                camera: camera.ender5
              - {name: voron, status: input_select.voron_status}
            """
        let file = try read(text)
        #expect(file.values == [
            "HA_URL": "http://homeassistant.local:8123", "HA_TOKEN_FILE": "/etc/printbridge/ha-token",
            "API_LISTEN": "0.0.0.0:3000", "API_TRUSTED_NETWORKS": "192.168.1.0/24,fd00::/8", "MILESTONES": "25,50,75",
            "LIVE_ACTIVITY_INTERVAL": "30", "START_SETTLE": "30", "APNS_BUNDLE_ID": "com.samduncan.PrinterMonitor",
            "DRY_RUN": "yes",
        ])
        #expect(file.printers.map(\.prefix) == ["ender3", "ender5", "voron"])
        #expect(file.printers[0].entities == [
            .status: "sensor.ender3_state", .progress: "sensor.ender3_progress", .taskName: "sensor.ender3_file",
        ])
        #expect(file.printers[1].profile.status(raw: "Printing from USB") == .running)
        #expect(file.printers[1].camera == "camera.ender5")
        #expect(file.printers[2].profile.name == "mapped:voron")
        let settings = Settings(sources: SettingSources(environment: ["HA_TOKEN": "t"], file: file))
        #expect(settings.problems.isEmpty, "\(settings.problems)")
        #expect(settings.delivery.dryRun && settings.planner.startSettle == 30)

        let emitted = try Yams.serialize(node: try #require(try Yams.compose(yaml: text)))
        let again = try SettingsFile(path: "s.yaml", text: emitted)
        #expect(again.values == file.values, "\(emitted)")
        #expect(again.printers == file.printers, "\(emitted)")
    }

    /// LF, CRLF and a byte-order mark read the same, to the column.
    @Test func crlfAndAByteOrderMark() throws {
        let text = "ha_url: http://h:8123\nmilestones:\n  - 10\n  - 90\nprinters:\n  a:\n    status: sensor.a\n"
        let plain = try read(text)
        let windows = try read("\u{FEFF}" + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n"))
        #expect(windows.values == plain.values && windows.positions == plain.positions && windows.printers == plain.printers)
        #expect(problem("\u{FEFF}ha_url: a\r\nbogus: 1\r\n") == problem("ha_url: a\nbogus: 1\n"))
        #expect(problem("ha_url: a\nbogus: 1\n")?.hasPrefix("s.yaml:2:1: unknown setting \"bogus\"") == true)
    }

    @Test func anEmptyFileOrOnlyCommentsSetsNothing() throws {
        #expect(try read("").values.isEmpty)
        #expect(try read("# nothing yet\n\n---\n").values.isEmpty)
    }

    @Test(arguments: [
        // Keys.
        ("ha_url: http://h:8123\nha_ulr: x\n", "s.yaml:2:1: unknown setting \"ha_ulr\" (did you mean ha_url?)"),
        ("bogus: 1\n", "s.yaml:1:1: unknown setting \"bogus\" (known: ha_url, ha_token, "),
        ("log_level: info\nlog_level: debug\n", "s.yaml:2:1: \"log_level\" is set twice"),
        // The first key twice in the mapping, at its second place.
        ("log_level: info\nha_url: a\n? [x]\n: 1\nlog_level: b\nha_url: b\n? [x]\n: 2\n", "s.yaml:5:1: \"log_level\" is set twice"),
        ("log_level: info\nLOG_LEVEL: debug\n", "s.yaml:2:1: \"LOG_LEVEL\" is set twice"),
        ("? [a]\n: b\n", "s.yaml:1:3: a key must be a name, not a list or a mapping"),
        // Values.
        ("ha_url:\n", "s.yaml:1:1: \"ha_url\" has no value (remove the line to use the default)"),
        ("log_level: ~\n", "s.yaml:1:1: \"log_level\" has no value"),
        ("log_level: null  # said so\n", "s.yaml:1:1: \"log_level\" has no value"),
        ("log_level: ''\n", "s.yaml:1:1: \"log_level\" has no value"),
        ("milestones: []\n", "s.yaml:1:1: \"milestones\" has no value"),
        ("milestones: [25, ~]\n", "s.yaml:1:18: \"milestones\" has no value"),
        ("ha_url: [a, b]\n", "s.yaml:1:9: \"ha_url\" takes one value, not a list"),
        ("ha_url:\n  host: h\n", "s.yaml:2:3: \"ha_url\" takes one value, not a mapping"),
        ("milestones: {a: 1}\n", "s.yaml:1:13: \"milestones\" takes one value or a list of values, not a mapping"),
        ("milestones:\n  - [25]\n", "s.yaml:2:5: \"milestones\" takes a list of values, not a list"),
        ("ha_token: !secret ha_token\n", "s.yaml:1:11: \"ha_token\" has the tag !secret, which PrintBridge does not read"),
        // The document.
        ("- ha_url: http://h:8123\n", "s.yaml:1:1: expected the settings as `key: value` lines"),
        ("ha_url http://h:8123\n", "s.yaml:1:1: expected the settings as `key: value` lines"),
        ("ha_url: a\n---\nlog_level: info\n", "s.yaml:2:1: not valid YAML: a second document (after ---): a settings file is one document"),
        ("m: &m {a: 1}\n<<: 5\n", "s.yaml:2:5: \"<<\" merges a mapping or a list of mappings"),
        // libyaml's own errors, with its context.
        ("ha_url: http://h:8123\n  api_listen: off\n", "s.yaml:2:13: not valid YAML: mapping values are not allowed in this context"),
        ("ha_url: \"http://h:8123\n", "s.yaml:2:1: not valid YAML: found unexpected end of stream (while scanning a quoted scalar at 1:9)"),
        ("milestones: [25, 50\n", "s.yaml:2:1: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence at 1:13)"),
        ("\tha_url: x\n", "s.yaml:1:1: not valid YAML: found character that cannot start any token (while scanning for the next token at 1:1); a tab: YAML indents with spaces"),
        ("ha_url: *nowhere\n", "s.yaml:1:9: not valid YAML: found undefined alias *nowhere"),
        ("milestones: " + String(repeating: "[", count: 65) + "\n", "s.yaml:1:76: not valid YAML: nested more than 64 levels deep"),
        ("ha_url: \"\\q\"\n", "s.yaml:1:10: not valid YAML: found unknown escape character (while parsing a quoted scalar at 1:9)"),
    ])
    func eachMistakeNamesItsLineAndColumn(text: String, expected: String) {
        let found = problem(text)
        #expect(found?.hasPrefix(expected) == true, "\(found ?? "no problem")")
    }

    /// Merge keys whose aliases multiply are stopped before they take the
    /// machine (a "billion laughs" through `<<`).
    @Test func mergeKeysThatMultiplyAreRefused() {
        var text = "a0: &a0 {x: 1}\n"
        for level in 1...12 {
            let previous = "*a\(level - 1)"
            text += "a\(level): &a\(level) {<<: [\(Array(repeating: previous, count: 4).joined(separator: ", "))]}\n"
        }
        text += "<<: *a12\n"
        #expect(problem(text)?.hasPrefix("s.yaml:") == true)
        #expect(problem(text)?.contains("merge keys expand to more than 10000 entries") == true, "\(problem(text) ?? "")")
    }

    /// The example the package installs loads as it is.
    @Test func theDeployedExampleLoads() throws {
        let root = String(#filePath.split(separator: "/Tests/")[0])
        let file = try SettingsFile.load(path: root + "/Deploy/printbridge.example.yaml")
        #expect(file.values["HA_URL"] == "http://homeassistant.local:8123")
        #expect(file.values["LOG_LEVEL"] == "info" && file.values["API_LISTEN"] == "0.0.0.0:3000")
        #expect(Settings(sources: SettingSources(environment: ["HA_TOKEN": "t"], file: file)).problems.isEmpty)
    }
}
