import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How pressing a printer's button in Home Assistant went, as the agent's
/// link to HA tells it.
public enum ButtonPress: Hashable, Sendable {
    /// HA shows no button for this action of the printer: nothing was sent.
    case noButton
    /// `button.press` on this entity was asked for, and how the call ended.
    case called(entityID: String, HASession.ServiceCallOutcome)
}

/// Presses the button that does `action` for printer `prefix` in Home
/// Assistant and tells how it went, once, from any thread.
public typealias ButtonPresser = @Sendable (
    _ action: PrinterAction, _ prefix: String, _ done: @escaping @Sendable (ButtonPress) -> Void
) -> Void

/// One printer action asked through the API, for the log and the metrics.
public struct ActionReport: Hashable, Sendable {
    public var action: String
    public var printer: String
    /// Who asked: "api token", "trusted network", "no auth", and the address.
    public var caller: String
    public var peer: String
    /// The HTTP status answered, and a short result word (pressed, refused, …).
    public var status: Int
    public var result: String
    public var entityID: String?
    public var message: String?
}

/// Actions allowed per caller: a bucket of `burst` that refills one every
/// `refillSeconds`; at most `maximumCallers` remembered (the emptiest
/// forgotten first), so a flood from many addresses costs bounded memory.
public final class ActionLimiter: Sendable {
    public let burst: Double
    public let refillSeconds: Double
    public let maximumCallers: Int
    private let clock: @Sendable () -> Double
    private let buckets = Mutex([String: (tokens: Double, at: Double)]())

    public init(
        burst: Int = 10, refillSeconds: Double = 6, maximumCallers: Int = 1024,
        clock: @escaping @Sendable () -> Double = { MonotonicClock.seconds() }
    ) {
        self.burst = Double(burst)
        self.refillSeconds = refillSeconds
        self.maximumCallers = maximumCallers
        self.clock = clock
    }

    /// Takes one action for `caller`: nil when allowed, else the seconds until the next is.
    public func take(_ caller: String) -> Int? {
        let now = clock()
        return buckets.withLock { buckets in
            var bucket = buckets[caller] ?? (burst, now)
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.at) / refillSeconds)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                buckets[caller] = bucket
                return Int(((1 - bucket.tokens) * refillSeconds).rounded(.up))
            }
            bucket.tokens -= 1
            if buckets[caller] == nil, buckets.count >= maximumCallers,
                let fullest = buckets.max(by: { $0.value.tokens < $1.value.tokens })?.key
            {
                buckets[fullest] = nil
            }
            buckets[caller] = bucket
            return nil
        }
    }
}

extension ControlAPI {
    /// `POST /api/printers/{prefix}/actions/{action}`: presses the printer's
    /// own pause, resume or stop button in Home Assistant and answers once HA
    /// has answered (later, through `reply`). Refused without asking HA: an
    /// unknown action or printer, a printer not reporting, an action that
    /// does not fit its state, a caller over its limit, no link to HA.
    func action(_ prefix: String, _ name: String, _ request: HTTPRequest, reply: HTTPReply) -> HTTPResponse? {
        let caller = caller(request)
        let peer = request.peer.map(TrustedNetworks.text) ?? ""
        let base = ActionReport(
            action: name, printer: prefix, caller: caller.description, peer: peer, status: 0, result: "")
        let metrics = metrics, actionTaken = actionTaken
        let metricName = PrinterAction(rawValue: name)?.rawValue ?? "unknown"
        let answer: @Sendable (HTTPResponse, String, String?, String?) -> HTTPResponse = { response, result, entity, message in
            var report = base
            report.status = response.status
            report.result = result
            report.entityID = entity
            report.message = message
            actionTaken(report)
            metrics?.action(metricName, result: result)
            return response
        }
        guard let action = PrinterAction(rawValue: name) else {
            return answer(APIError.response(404, "Unknown action \(name); use pause, resume or stop"), "unknown_action", nil, nil)
        }
        guard let printer = printers().first(where: { $0.prefix == prefix }) else {
            return answer(APIError.response(404, "Printer not found"), "unknown_printer", nil, nil)
        }
        if printer.silentSince != nil {
            return answer(APIError.response(409, "The printer is not reporting to Home Assistant"), "printer_offline", nil, nil)
        }
        if let refusal = action.refusal(status: printer.status) {
            return answer(APIError.response(409, refusal), "does_not_fit", nil, nil)
        }
        // Per phone when it sends its own credential (phones behind one NAT
        // address do not share a limit), else per address.
        let limited: String
        if case .phone = caller { limited = caller.description } else { limited = peer.isEmpty ? caller.description : peer }
        if let wait = actionLimiter.take(limited) {
            var response = APIError.response(429, "Too many printer actions; try again in \(wait) s")
            response.extraHeaders = [("Retry-After", String(wait))]
            return answer(response, "rate_limited", nil, nil)
        }
        guard let pressButton else {
            return answer(APIError.response(503, "Not connected to Home Assistant"), "not_connected", nil, nil)
        }
        pressButton(action, prefix) { press in
            let response: HTTPResponse
            switch press {
            case .called(let entity, .done):
                response = HTTPResponse(status: 200, body: JSONText.object([
                    ("success", "true"), ("printer", JSONText.quoted(prefix)), ("action", JSONText.quoted(action.rawValue)),
                    ("entityId", JSONText.quoted(entity)),
                ]))
                reply.send(answer(response, "pressed", entity, nil))
            case .noButton:
                response = APIError.response(
                    422, "Home Assistant shows no \(action.rawValue) button for this printer")
                reply.send(answer(response, "no_button", nil, nil))
            case .called(let entity, .refused(let code, let message)):
                let said = message ?? code ?? "no reason given"
                response = APIError.response(502, "Home Assistant refused: \(said)")
                reply.send(answer(response, "refused", entity, said))
            case .called(let entity, .connectionLost):
                response = APIError.response(
                    502, "The connection to Home Assistant ended before it answered; the button may have been pressed")
                reply.send(answer(response, "connection_lost", entity, nil))
            case .called(let entity, .timedOut):
                response = APIError.response(504, "Home Assistant did not answer in time; the button may have been pressed")
                reply.send(answer(response, "timed_out", entity, nil))
            case .called(_, .notConnected):
                reply.send(answer(APIError.response(503, "Not connected to Home Assistant"), "not_connected", nil, nil))
            }
        }
        return nil
    }
}

/// A POSIX semaphore: `ControlAPI.handle(_:)` waits on it for an answer
/// given later (its synchronous callers: tests and tools).
final class Semaphore: @unchecked Sendable {
    // @unchecked Sendable: sem_t is made for use from many threads.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func signal() { sem_post(semaphore) }

    func wait() { while sem_wait(semaphore) != 0 {} }
}
