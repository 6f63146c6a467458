import ControlAPI
@testable import DeviceStore
import Foundation
import FoundationNetworking
import PrintBridgeCore
import Synchronization
import Testing

/// `POST /api/printers/{prefix}/actions/{action}` through the real server:
/// what is pressed, what is refused without asking HA, and the answer that
/// waits for HA's (issue 31).
@Suite struct PrinterActionTests {
    static let apiToken = "test-api-token-0123456789"

    /// The fake link: records each press and answers as told, from another thread.
    final class Link: Sendable {
        let presses = Mutex<[String]>([])
        let answer: @Sendable (PrinterAction, String) -> ButtonPress?
        init(_ answer: @escaping @Sendable (PrinterAction, String) -> ButtonPress?) { self.answer = answer }

        var presser: ButtonPresser {
            { action, prefix, done in
                self.presses.withLock { $0.append("\(prefix) \(action.rawValue)") }
                guard let press = self.answer(action, prefix) else { return }  // never answers
                Thread.detachNewThread {
                    Thread.sleep(forTimeInterval: 0.05)  // HA answers after the handler returned
                    done(press)
                }
            }
        }
    }

    final class Reports: Sendable {
        let list = Mutex<[ActionReport]>([])
        func withLock<T>(_ body: ([ActionReport]) -> T) -> T { list.withLock { body($0) } }
    }

    struct Setup {
        let server: HTTPServer
        let metrics: AgentMetrics
        let reports: Reports
    }

    static func snapshot(_ prefix: String, _ status: String, silent: Bool = false) -> PrinterSnapshot {
        var printer = PrinterSnapshot(prefix: prefix)
        printer.rawStatus = status
        if silent { printer.silentSince = EpochTime(seconds: 1) }
        return printer
    }

    static func start(
        link: Link?, printers: [PrinterSnapshot] = [snapshot("x1c", "running"), snapshot("p1s", "pause")],
        limiter: ActionLimiter = ActionLimiter(), limits: HTTPServer.Limits = .init()
    ) throws -> Setup {
        let directory = NSTemporaryDirectory() + "printbridge-actions-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try DeviceStore(directory: directory)
        let metrics = AgentMetrics(apnsMode: "configured")
        let reports = Reports()
        let api = ControlAPI(
            store: store, apiToken: apiToken,
            apns: .init(configured: true, bundleID: "com.samduncan.PrinterMonitor", production: false),
            printers: { printers }, metrics: metrics, pressButton: link?.presser, actionLimiter: limiter,
            actionTaken: { report in reports.list.withLock { $0.append(report) } })
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { api.handle($0, reply: $1) }
        try server.start()
        return Setup(server: server, metrics: metrics, reports: reports)
    }

    static func post(_ setup: Setup, _ path: String, token: String? = apiToken) async throws -> (Int, [String: Any], HTTPURLResponse) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(setup.server.port)\(path)")!)
        request.httpMethod = "POST"
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:], http)
    }

    @Test func aPauseIsPressedAndAnsweredOnceHAHasAnswered() async throws {
        let link = Link { action, prefix in .called(entityID: "button.\(prefix)_\(action.rawValue)_printing", .done) }
        let setup = try Self.start(link: link)
        defer { setup.server.stop() }
        let (status, json, _) = try await Self.post(setup, "/api/printers/x1c/actions/pause")
        #expect(status == 200, "\(json)")
        #expect(json["success"] as? Bool == true)
        #expect(json["entityId"] as? String == "button.x1c_pause_printing")
        #expect(json["action"] as? String == "pause" && json["printer"] as? String == "x1c")
        #expect(link.presses.withLock { $0 } == ["x1c pause"])
        let report = try #require(setup.reports.withLock { $0 }.first)
        #expect(report.result == "pressed" && report.caller == "api token" && report.peer == "127.0.0.1", "\(report)")
        #expect(setup.metrics.exposition().contains(#"printbridge_printer_actions_total{action="pause",result="pressed"} 1"#))
    }

    @Test func whatDoesNotFitIsRefusedWithoutAskingHA() async throws {
        let link = Link { _, prefix in .called(entityID: "button.\(prefix)", .done) }
        let setup = try Self.start(link: link, printers: [
            Self.snapshot("x1c", "running"), Self.snapshot("p1s", "pause"), Self.snapshot("a1", "idle"),
            Self.snapshot("gone", "running", silent: true),
        ])
        defer { setup.server.stop() }
        let cases: [(String, Int, String)] = [
            ("/api/printers/x1c/actions/resume", 409, "Only a paused print can be resumed; it is running"),
            ("/api/printers/p1s/actions/pause", 409, "Only a running print can be paused; it is paused"),
            ("/api/printers/a1/actions/stop", 409, "No print to stop; it is idle"),
            ("/api/printers/gone/actions/pause", 409, "The printer is not reporting to Home Assistant"),
            ("/api/printers/nope/actions/pause", 404, "Printer not found"),
            ("/api/printers/x1c/actions/explode", 404, "Unknown action explode; use pause, resume or stop"),
        ]
        for (path, expected, error) in cases {
            let (status, json, _) = try await Self.post(setup, path)
            #expect(status == expected, "\(path): \(json)")
            #expect(json["error"] as? String == error, "\(path)")
        }
        #expect(link.presses.withLock { $0 }.isEmpty, "nothing sent to HA")
        let (stranger, _, _) = try await Self.post(setup, "/api/printers/x1c/actions/pause", token: "wrong")
        #expect(stranger == 401)
        #expect(link.presses.withLock { $0 }.isEmpty)
        #expect(setup.metrics.exposition().contains(#"printbridge_printer_actions_total{action="resume",result="does_not_fit"} 1"#))
    }

    @Test func haSRefusalsAndSilencesAreToldInPlainWords() async throws {
        let link = Link { action, prefix in
            switch action {
            case .pause: .called(entityID: "button.\(prefix)_pause_job", .refused(code: "home_assistant_error", message: "Printer is not printing"))
            case .resume: .noButton
            case .stop: .called(entityID: "button.\(prefix)_stop_job", .connectionLost)
            }
        }
        let setup = try Self.start(link: link, printers: [Self.snapshot("x1c", "running"), Self.snapshot("p1s", "pause")])
        defer { setup.server.stop() }
        let (refused, refusal, _) = try await Self.post(setup, "/api/printers/x1c/actions/pause")
        #expect(refused == 502 && refusal["error"] as? String == "Home Assistant refused: Printer is not printing")
        let (missing, noButton, _) = try await Self.post(setup, "/api/printers/p1s/actions/resume")
        #expect(missing == 422 && noButton["error"] as? String == "Home Assistant shows no resume button for this printer")
        let (lost, lostJSON, _) = try await Self.post(setup, "/api/printers/x1c/actions/stop")
        #expect(lost == 502 && (lostJSON["error"] as? String ?? "").contains("may have been pressed"))
        let results = setup.reports.withLock { $0 }.map(\.result)
        #expect(results == ["refused", "no_button", "connection_lost"])
    }

    @Test func withoutALinkToHAItIs503() async throws {
        let setup = try Self.start(link: nil)
        defer { setup.server.stop() }
        let (status, json, _) = try await Self.post(setup, "/api/printers/x1c/actions/pause")
        #expect(status == 503 && json["error"] as? String == "Not connected to Home Assistant")
    }

    /// HA never answers: the API gives up at its reply timeout, the server
    /// stays free for other requests meanwhile.
    @Test func anAnswerThatNeverComesIsA504AndHoldsNothingElseUp() async throws {
        var limits = HTTPServer.Limits()
        limits.replyTimeout = 1
        let link = Link { _, _ in nil }
        let setup = try Self.start(link: link, limits: limits)
        defer { setup.server.stop() }
        async let pending = Self.post(setup, "/api/printers/x1c/actions/pause")
        // Meanwhile the server answers others at once.
        var health = URLRequest(url: URL(string: "http://127.0.0.1:\(setup.server.port)/healthz")!)
        health.timeoutInterval = 5
        let (_, healthResponse) = try await URLSession.shared.data(for: health)
        #expect((healthResponse as! HTTPURLResponse).statusCode == 200)
        let (status, json, _) = try await pending
        #expect(status == 504, "\(json)")
    }

    /// A flood from one caller: 10 actions, then 429 with Retry-After, and
    /// nothing more sent to HA.
    @Test func anActionFloodIsLimitedPerCaller() async throws {
        let now = Mutex(0.0)
        let limiter = ActionLimiter(burst: 10, refillSeconds: 6, clock: { now.withLock { $0 } })
        let link = Link { _, prefix in .called(entityID: "button.\(prefix)_stop", .done) }
        let setup = try Self.start(link: link, limiter: limiter)
        defer { setup.server.stop() }
        for _ in 0..<10 {
            let (status, _, _) = try await Self.post(setup, "/api/printers/x1c/actions/stop")
            #expect(status == 200)
        }
        let (limited, json, response) = try await Self.post(setup, "/api/printers/x1c/actions/stop")
        #expect(limited == 429, "\(json)")
        #expect(response.value(forHTTPHeaderField: "Retry-After") == "6")
        #expect(link.presses.withLock { $0 }.count == 10)
        now.withLock { $0 = 6 }
        let (again, _, _) = try await Self.post(setup, "/api/printers/x1c/actions/stop")
        #expect(again == 200, "one more after the refill")
    }

    @Test func theLimiterForgetsTheFullestCallerFirstAndStaysBounded() {
        let now = Mutex(0.0)
        let limiter = ActionLimiter(burst: 2, refillSeconds: 10, maximumCallers: 3, clock: { now.withLock { $0 } })
        #expect(limiter.take("a") == nil && limiter.take("a") == nil)
        #expect(limiter.take("a") == 10)
        for caller in ["b", "c", "d", "e"] { #expect(limiter.take(caller) == nil) }
        // "a" emptied its bucket and is remembered; fuller ones made room.
        #expect(limiter.take("a") == 10)
    }
}
