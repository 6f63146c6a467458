import PrintBridgeCore

/// The status page at `/`: what the agent is doing, without reading logs.
/// Plain HTML and CSS from the agent (no script, no build step), readable at
/// phone width, refreshing itself every 10 s. Every URL in it is relative,
/// so it works as well under Home Assistant's ingress prefix
/// (`/api/hassio_ingress/<token>/`) as at the root of the API's port.
public enum StatusPage {
    public struct Model: Sendable {
        public var overview: AgentMetrics.Overview?
        public var printers: [PrinterSnapshot]
        /// Registered phones, as the store has them (activities included).
        public var devices: [Device]
        /// The last prints, newest first, of every printer.
        public var history: [PrintRecord]
        public var now: EpochTime
        /// The latest picture of each printer, by prefix: its signed link.
        public var snapshots: [String: String]
        /// Live phone credentials by the device they are bound to.
        public var liveCredentials: [String: Int] = [:]
        /// Whether the page may offer a pairing code (the agent can make one).
        public var offersPairing = false
        /// Each printer's statistics over the last `statisticsDays` days, by prefix.
        public var statistics: [String: Statistics] = [:]
        /// What the page's forms carry to show they came from it.
        public var formToken = ""

        public init(
            overview: AgentMetrics.Overview?, printers: [PrinterSnapshot], devices: [Device], history: [PrintRecord],
            now: EpochTime, snapshots: [String: String] = [:]
        ) {
            self.snapshots = snapshots
            self.overview = overview
            self.printers = printers
            self.devices = devices
            self.history = history
            self.now = now
        }
    }

    /// The headers of every page of the agent's: never cached; never shown
    /// in another site's frame (its buttons cannot be click-jacked; HA's
    /// ingress frames it from HA's own origin, which is the page's there);
    /// nothing loaded but its own pictures and inline style; forms post only
    /// to the agent.
    static let headers: [(String, String)] = [
        ("Cache-Control", "no-store"),
        ("X-Frame-Options", "SAMEORIGIN"),
        ("Content-Security-Policy",
         "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
    ]

    /// A form's hidden field that says it came from the page.
    static func formField(_ model: Model) -> String {
        #"<input type="hidden" name="form" value="\#(escape(model.formToken))">"#
    }

    /// How many prints the page shows per printer.
    public static let printsPerPrinter = 5

    public static func render(_ model: Model) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="refresh" content="10">
            <title>PrintBridge</title>
            <style>\(css)\(statisticsCSS)</style>
            </head><body><main>
            <h1>PrintBridge</h1>

            """
        html += connection(model.overview)
        html += printers(model)
        html += phones(model)
        if model.offersPairing {
            html += section("Pair a phone", #"<form method="post" action="pairing-code">"# + formField(model)
                + #"<button type="submit">Show a pairing code</button></form>"#
                + #"<p class="quiet">A one-time code for the app to scan, valid for 10 minutes.</p>"#)
        }
        html += pushes(model)
        html += "</main></body></html>\n"
        return html
    }

    private static func connection(_ overview: AgentMetrics.Overview?) -> String {
        guard let overview else { return "" }
        let ha = overview.haConnected
            ? #"<span class="ok">connected</span>"#
            : #"<span class="bad">disconnected</span> for \#(duration(overview.haAwaySeconds))"#
        let apns = overview.apnsMode == "dry-run"
            ? "dry run (pushes are printed, not sent)"
            : "configured, last push \(escape(overview.apnsLastPush))"
        var rows = [
            ("Home Assistant", ha + (overview.haReconnects > 0 ? " (\(overview.haReconnects) reconnect(s))" : "")),
            ("Last event", overview.lastEventAge.map { "\(duration($0)) ago" } ?? "none yet"),
            ("APNs", apns),
        ]
        if overview.outbox > 0 { rows.append(("Waiting for APNs", "\(overview.outbox) push(es)")) }
        return section("Connection", "<dl>" + rows.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined() + "</dl>")
    }

    private static func printers(_ model: Model) -> String {
        var prefixes = model.printers.map(\.prefix)
        for record in model.history where !prefixes.contains(record.printer) { prefixes.append(record.printer) }
        for prefix in model.statistics.keys.sorted() where !prefixes.contains(prefix) && model.statistics[prefix]!.totals.prints > 0 {
            prefixes.append(prefix)
        }
        guard !prefixes.isEmpty else {
            return section("Printers", #"<p class="quiet">No printer seen yet: PrintBridge shows a printer once Home Assistant reports its status.</p>"#)
        }
        var body = ""
        for prefix in prefixes {
            let printer = model.printers.first { $0.prefix == prefix }
            let prints = model.history.filter { $0.printer == prefix }.prefix(printsPerPrinter)
            let name = printer?.displayName ?? prints.first?.printerName ?? prefix
            body += #"<article class="printer"><h3>\#(escape(name)) <small>\#(escape(prefix))</small></h3>"#
            if let printer {
                let status = printer.status?.rawValue ?? "unknown"
                var facts = [#"<span class="status \#(status)">\#(status)</span>"#]
                if printer.status?.isActive == true {
                    facts.append("\(Int((printer.progress ?? 0).rounded(.down))) %")
                    if let left = printer.remainingSeconds { facts.append("\(duration(left)) left") }
                    if let current = printer.currentLayer, let total = printer.totalLayers, total > 0 {
                        facts.append("layer \(current)/\(total)")
                    }
                }
                body += "<p>" + facts.joined(separator: " · ") + "</p>"
                if let file = printer.fileName { body += #"<p class="file">\#(escape(file))</p>"# }
            }
            if let link = model.snapshots[prefix], let expires = SnapshotLink.expiry(of: link), expires > model.now {
                // Relative (no leading "/"), as every URL here: it works under the ingress prefix too.
                let source = escape(String(link.drop { $0 == "/" }))
                body += #"<figure class="snapshot"><img src="\#(source)" alt="Latest picture of \#(escape(name))">"#
                    + "<figcaption>latest picture, with the last alert</figcaption></figure>"
            }
            if let stats = model.statistics[prefix], stats.totals.prints > 0 { body += statistics(stats, name: name) }
            if prints.isEmpty {
                body += #"<p class="quiet">No print recorded yet.</p>"#
            } else {
                body += "<table><thead><tr><th>Ended</th><th>File</th><th>Outcome</th><th>Took</th></tr></thead><tbody>"
                for record in prints {
                    let outcome = escape(record.outcome.rawValue)
                        + (record.reason.map { #"<br><small>\#(escape($0))</small>"# } ?? "")
                        + (record.outcome == .complete ? "" : record.progress.map { " <small>at \(Int($0.rounded(.down))) %</small>" } ?? "")
                    body += "<tr><td>\(ago(record.endedAt, model.now))</td><td>\(escape(record.file ?? "—"))</td>"
                        + #"<td class="\#(record.outcome.rawValue)">\#(outcome)</td><td>\#(duration(record.durationSeconds))</td></tr>"#
                }
                body += "</tbody></table>"
            }
            body += "</article>"
        }
        return section("Printers", body)
    }

    private static func phones(_ model: Model) -> String {
        let phones = model.devices.filter(\.receivesAlerts)
        guard !phones.isEmpty else {
            return section("Phones", #"<p class="quiet">No phone registered yet: pair the app with <code>printbridge pair</code>.</p>"#)
        }
        var body = "<table><thead><tr><th>Phone</th><th>Follows</th><th>Notes</th></tr></thead><tbody>"
        for device in phones {
            let preferences = device.preferences
            let off = [
                ("notifications", preferences.notificationsEnabled), ("start", preferences.onStart),
                ("complete", preferences.onComplete), ("failed", preferences.onFailed), ("paused", preferences.onPaused),
                ("milestones", preferences.onMilestone), ("printer errors", preferences.onPrinterError),
                ("bed cooled", preferences.onBedCooled), ("background refresh", preferences.backgroundRefresh),
                ("pictures", preferences.snapshots),
            ].filter { !$0.1 }.map(\.0)
            var notes: [String] = []
            if device.isDisabled { notes.append(#"<span class="bad">disabled (APNs refused its token)</span>"#) }
            if !off.isEmpty { notes.append("off: " + off.joined(separator: ", ")) }
            if let language = device.language { notes.append("language: " + escape(language)) }
            if preferences.onFirstLayer { notes.append("first layer alerts") }
            if preferences.schedule != AlertSchedule() { notes.append(escape(preferences.schedule.summary)) }
            if !device.activityTokens.isEmpty {
                notes.append("Live Activity: " + device.activityTokens.keys.sorted().map(escape).joined(separator: ", "))
            }
            if model.liveCredentials[device.id, default: 0] > 0 {
                // A form, not a link: a POST, checked to come from this page (its token, Origin).
                notes.append(#"own credential <form class="inline" method="post" action="devices/\#(escape(device.id))/revoke">"#
                    + formField(model) + #"<button type="submit">Revoke</button></form>"#)
            }
            let follows = device.printerPrefixes.isEmpty
                ? "all printers" : device.printerPrefixes.sorted().map(escape).joined(separator: ", ")
            body += "<tr><td><code>\(escape(TokenFormat.shortened(device.apnsToken)))</code></td><td>\(follows)</td>"
                + "<td>\(notes.joined(separator: "<br>"))</td></tr>"
        }
        let activitiesAlone = model.devices.filter { !$0.receivesAlerts }.reduce(0) { $0 + $1.activityTokens.count }
        body += "</tbody></table>"
        if activitiesAlone > 0 {
            body += #"<p class="quiet">\#(activitiesAlone) Live Activity token(s) from the app without a phone named.</p>"#
        }
        return section("Phones", body)
    }

    private static func pushes(_ model: Model) -> String {
        guard let recent = model.overview?.recentPushes else { return "" }
        guard !recent.isEmpty else { return section("Last pushes", #"<p class="quiet">No push sent since the agent started.</p>"#) }
        var names: [String: String] = [:]
        for printer in model.printers { names[printer.prefix] = printer.displayName }
        var body = "<table><thead><tr><th>When</th><th>Push</th><th>Printer</th><th>Phone</th><th>APNs</th></tr></thead><tbody>"
        for push in recent {
            let kind = switch push.kind {
            case .alert: "alert"
            case .liveActivity: "Live Activity"
            case .background: "background"
            }
            let answer = escape(push.outcome.replacingUnderscores) + (push.reason.isEmpty ? "" : " (\(escape(push.reason)))")
            body += "<tr><td>\(ago(push.at, model.now))</td><td>\(kind) \(escape(push.event.rawValue))</td>"
                + "<td>\(escape(names[push.printer] ?? push.printer))</td><td><code>\(escape(push.device))</code></td>"
                + #"<td class="\#(push.outcome)">\#(answer)</td></tr>"#
        }
        return section("Last pushes", body + "</tbody></table>")
    }

    /// A page of its own in the status page's style (the pairing code).
    static func standalone(title: String, body: String) -> String {
        """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>PrintBridge: \(escape(title))</title>
            <style>\(css)</style>
            </head><body><main>
            <h1>PrintBridge</h1>
            \(section(title, body))</main></body></html>

            """
    }

    private static func section(_ title: String, _ body: String) -> String {
        "<section><h2>\(title)</h2>\(body)</section>\n"
    }

    /// "40 s", "12 min", "2 h 03 min", "3 d 4 h" (also `printbridge history`'s).
    public static func duration(_ seconds: Int) -> String {
        let seconds = max(0, seconds)
        if seconds < 60 { return "\(seconds) s" }
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 48 { return "\(hours) h \(minutes % 60 < 10 ? "0" : "")\(minutes % 60) min" }
        return "\(hours / 24) d \(hours % 24) h"
    }

    private static func ago(_ time: EpochTime, _ now: EpochTime) -> String {
        #"<time datetime="\#(ISO8601.format(time))">\#(duration(Int(now.seconds - time.seconds))) ago</time>"#
    }

    /// Text as HTML: the five characters that could end an element or attribute.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for char in text {
            switch char {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(char)
            }
        }
        return out
    }

    private static let css = """
        :root{color-scheme:light dark;--fg:#1d1d1f;--bg:#f5f5f7;--card:#fff;--muted:#6e6e73;--ok:#1a7f37;--bad:#c62828;--warn:#b26a00}
        @media (prefers-color-scheme:dark){:root{--fg:#f5f5f7;--bg:#000;--card:#1c1c1e;--muted:#98989d;--ok:#30d158;--bad:#ff453a;--warn:#ffb340}}
        *{box-sizing:border-box}body{margin:0;font:15px/1.4 -apple-system,system-ui,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
        main{max-width:860px;margin:0 auto;padding:12px}h1{font-size:22px;margin:8px 0 12px}h2{font-size:17px;margin:0 0 8px}
        h3{font-size:16px;margin:0 0 4px}h3 small{color:var(--muted);font-weight:normal;font-size:12px;word-break:break-all}
        section{background:var(--card);border-radius:12px;padding:12px 14px;margin:0 0 12px;overflow-x:auto}
        article.printer{border-top:1px solid rgba(128,128,128,.25);padding:10px 0 4px}article.printer:first-of-type{border-top:0;padding-top:0}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}dt{color:var(--muted)}dd{margin:0}
        table{border-collapse:collapse;width:100%;font-size:14px}th,td{text-align:left;padding:4px 8px 4px 0;vertical-align:top}
        th{color:var(--muted);font-weight:600}td small{color:var(--muted)}p{margin:4px 0}.file{color:var(--muted);word-break:break-all}
        .quiet{color:var(--muted)}.ok,.complete,.delivered,.running{color:var(--ok)}.bad,.failed,.rejected,.expired{color:var(--bad)}
        .cancelled,.paused,.abandoned,.superseded{color:var(--warn)}.status{font-weight:600}code{font-size:13px;white-space:nowrap}
        figure.snapshot{margin:6px 0}figure.snapshot img{display:block;max-width:100%;max-height:320px;border-radius:8px}
        figcaption{color:var(--muted);font-size:12px}form.inline{display:inline;margin-left:6px}
        button{font:inherit;padding:2px 10px;border-radius:6px;border:1px solid var(--muted);background:var(--card);color:var(--fg)}
        img.qr{image-rendering:pixelated;width:240px;height:240px;background:#fff;padding:8px;border-radius:8px}
        """
}

extension String {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
