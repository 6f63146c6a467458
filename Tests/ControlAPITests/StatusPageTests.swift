import ControlAPI
import PrintBridgeCore
import Testing

/// The status page's HTML: what it shows, and that nothing from HA or the
/// app can become markup.
@Suite struct StatusPageRenderTests {
    let now = EpochTime(seconds: 1_795_000_000)

    func printer(file: String) -> PrinterSnapshot {
        var printer = PrinterSnapshot(prefix: "x1c_1")
        printer.rawStatus = "running"
        printer.progress = 42.7
        printer.remainingSeconds = 5400
        printer.currentLayer = 120
        printer.totalLayers = 300
        printer.taskName = file
        printer.statusEntityName = "X1C Print status"
        return printer
    }

    @Test func aPrintUnderWayAndItsHistory() {
        let history = [
            PrintRecord(printID: "x1c_1-1794990000", printer: "x1c_1", file: "bracket.3mf",
                        startedAt: EpochTime(seconds: 1_794_990_000), endedAt: EpochTime(seconds: 1_794_993_600),
                        outcome: .failed, reason: "print error 0700-8006", progress: 37.9),
            PrintRecord(printID: "p1s_2-1794900000", printer: "p1s_2", printerName: "Garage", file: "vase.3mf",
                        startedAt: EpochTime(seconds: 1_794_900_000), endedAt: EpochTime(seconds: 1_794_907_500), outcome: .complete),
        ]
        let html = StatusPage.render(.init(overview: nil, printers: [printer(file: "benchy.3mf")], devices: [], history: history, now: now))
        #expect(html.contains(#"<span class="status running">running</span> · 42 % · 1 h 30 min left · layer 120/300"#))
        #expect(html.contains("<h3>X1C <small>x1c_1</small></h3>"))
        #expect(html.contains(#"<td class="failed">failed<br><small>print error 0700-8006</small> <small>at 37 %</small></td><td>1 h 00 min</td>"#))
        #expect(html.contains("<h3>Garage <small>p1s_2</small></h3>"), "a printer known only from its history")
        #expect(html.contains(">1 h 46 min ago</time>"), "ended 6,400 s before now")
        #expect(html.contains("No phone registered yet"))
        #expect(!html.contains("<h2>Connection</h2>"), "no overview, no connection section")
    }

    @Test func textFromHAAndTheAppIsNeverMarkup() {
        let evil = #"<script>alert("x")</script>&'"#
        var device = Device(id: "d", apnsToken: String(repeating: "ab", count: 32), printerPrefixes: [evil],
                            preferences: .all, activityTokens: [:], pushToStartToken: nil)
        device.preferences.onPaused = false
        let html = StatusPage.render(.init(overview: nil, printers: [printer(file: evil)], devices: [device], history: [], now: now))
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"))
        #expect(html.contains("off: paused"))
        #expect(!html.contains(String(repeating: "ab", count: 32)), "never a whole token")
    }
}
