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

/// The status page's statistics: each printer's last 30 days as an SVG
/// chart drawn by the agent, its totals and failures by reason.
@Suite struct StatusPageStatisticsTests {
    @Test func aPrintersLast30DaysAsBarsTotalsAndFailures() throws {
        // 30 days in UTC from 28 Oct; two prints on 20 Nov, one cancel on 24 Nov.
        let from: Int64 = 1_793_145_600, to: Int64 = from + 30 * 86_400
        var counts = Statistics.Counts()
        var busy = Statistics.Tally()
        busy.add(.complete, count: 1)
        busy.add(.failed, count: 1)
        busy.seconds = 4 * 3600
        busy.pausedSeconds = 1800
        busy.grams = 61.5
        counts.days[CivilDay(year: 2026, month: 11, day: 20)] = busy
        var cancel = Statistics.Tally()
        cancel.add(.cancelled, count: 1)
        cancel.seconds = 600
        counts.days[CivilDay(year: 2026, month: 11, day: 24)] = cancel
        counts.failures = [("print error 0300-8003 <b>", 1)]
        let stats = Statistics(counts: counts, printer: "x1c", from: from, to: to, clock: .utc, bucket: .day)
        var model = StatusPage.Model(overview: nil, printers: [], devices: [], history: [], now: EpochTime(seconds: Double(to)))
        model.statistics = ["x1c": stats]
        let html = StatusPage.render(model)
        #expect(html.contains("<h3>x1c <small>x1c</small></h3>"), "a printer known from its statistics alone")
        #expect(html.contains(#"<svg class="chart" viewBox="0 0 300 80" role="img""#))
        #expect(html.components(separatedBy: "<g><title>").count - 1 == 30, "one bar a day")
        #expect(html.contains("<title>2026-11-20: 2 prints (1 completed, 1 failed, 0 cancelled)</title>"))
        #expect(html.contains("<title>2026-10-28: 0 prints</title>"))
        // The busiest day fills the plot (54 units): half completed, half failed.
        #expect(html.contains(#"<rect class="complete" x="#) && html.contains(#"height="27"/><rect class="failed""#))
        #expect(html.contains("3 prints · 33 % completed · 3.7 h printing · 62 g"))
        #expect(html.contains("Failures: print error 0300-8003 &lt;b&gt; (1)"), "escaped")
        #expect(html.contains(">28 Oct<") && html.contains(">26 Nov<"))
        #expect(!html.contains("<script"))
    }
}
