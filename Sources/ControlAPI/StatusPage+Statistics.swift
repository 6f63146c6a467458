import PrintBridgeCore

/// The status page's statistics of each printer: the last 30 days as a bar
/// chart drawn here as SVG (no script, no chart library: the page has
/// none), the totals, and the failures by reason.
extension StatusPage {
    /// Days the page's chart covers (today and the days before).
    public static let statisticsDays = 30

    static func statistics(_ stats: Statistics, name: String) -> String {
        let t = stats.totals
        var html = #"<div class="stats"><h4>Last \#(statisticsDays) days</h4>"#
        html += chart(stats, name: name)
        var facts = ["\(t.prints) print\(t.prints == 1 ? "" : "s")"]
        if let rate = t.successRate { facts.append("\(Int((rate * 100).rounded())) % completed") }
        facts.append("\(hours(t.printingSeconds)) printing")
        if t.grams > 0 { facts.append("\(Int(t.grams.rounded())) g") } else if t.meters > 0 { facts.append("\(Int(t.meters.rounded())) m") }
        html += "<p>" + facts.joined(separator: " · ") + "</p>"
        if !stats.failures.isEmpty {
            html += #"<p class="quiet">Failures: "# + stats.failures.map {
                "\(escape($0.reason)) (\($0.count))"
            }.joined(separator: ", ") + "</p>"
        }
        return html + "</div>"
    }

    /// "3.5 h", "40 min".
    static func hours(_ seconds: Double) -> String {
        seconds < 3600 ? "\(Int((seconds / 60).rounded())) min" : "\(Int((seconds / 360).rounded()) / 10).\(Int((seconds / 360).rounded()) % 10) h"
    }

    /// One bar per day, stacked: completed, failed, cancelled and abandoned.
    /// The scale's top is the busiest day; each bar says its day and counts
    /// in a `<title>` (a tooltip, and what a screen reader reads).
    static func chart(_ stats: Statistics, name: String) -> String {
        let days = stats.series
        let width = 300, height = 80, top = 12, bottom = 14
        let plot = height - top - bottom
        let busiest = max(1, days.map(\.tally.prints).max() ?? 0)
        let step = Double(width) / Double(max(1, days.count))
        let barWidth = max(1, step * 0.7)
        func number(_ value: Double) -> String {
            let rounded = (value * 10).rounded() / 10
            return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        }
        var svg = #"<svg class="chart" viewBox="0 0 \#(width) \#(height)" role="img" "#
            + #"aria-label="Prints per day over the last \#(days.count) days for \#(escape(name)): \#(stats.totals.prints) in all">"#
        svg += #"<line class="axis" x1="0" y1="\#(height - bottom)" x2="\#(width)" y2="\#(height - bottom)"/>"#
        svg += #"<text class="label" x="0" y="9">\#(busiest) a day</text>"#
        for (index, day) in days.enumerated() {
            let t = day.tally
            let x = Double(index) * step + (step - barWidth) / 2
            var y = Double(height - bottom)
            var title = "\(day.start): \(t.prints) print\(t.prints == 1 ? "" : "s")"
            if t.prints > 0 { title += " (\(t.completed) completed, \(t.failed) failed, \(t.cancelled + t.abandoned) cancelled)" }
            svg += "<g><title>\(escape(title))</title>"
            for (count, kind) in [(t.completed, "complete"), (t.failed, "failed"), (t.cancelled + t.abandoned, "cancelled")]
            where count > 0 {
                let h = Double(plot) * Double(count) / Double(busiest)
                y -= h
                svg += #"<rect class="\#(kind)" x="\#(number(x))" y="\#(number(y))" width="\#(number(barWidth))" height="\#(number(h))"/>"#
            }
            if t.prints == 0 {
                svg += #"<rect class="none" x="\#(number(x))" y="\#(height - bottom - 1)" width="\#(number(barWidth))" height="1"/>"#
            }
            svg += "</g>"
        }
        if let first = days.first, let last = days.last {
            svg += #"<text class="label" x="0" y="\#(height - 2)">\#(short(first.start))</text>"#
            svg += #"<text class="label" x="\#(width)" y="\#(height - 2)" text-anchor="end">\#(short(last.start))</text>"#
        }
        return svg + "</svg>"
    }

    /// "3 Nov".
    static func short(_ day: CivilDay) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = day.parts
        return "\(parts.day) \(months[parts.month - 1])"
    }

    static let statisticsCSS = """
        .stats{margin:6px 0 8px}.stats h4{font-size:13px;color:var(--muted);margin:6px 0 2px;font-weight:600}
        svg.chart{display:block;width:100%;max-width:520px;height:auto}svg.chart .axis{stroke:var(--muted);stroke-width:.5}
        svg.chart .label{fill:var(--muted);font-size:8px}svg.chart rect.complete{fill:var(--ok)}svg.chart rect.failed{fill:var(--bad)}
        svg.chart rect.cancelled{fill:var(--warn)}svg.chart rect.none{fill:var(--muted);opacity:.35}
        """
}
