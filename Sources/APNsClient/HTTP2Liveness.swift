import PrintBridgeCore

/// Whether a connection is alive, as a value: the connect timeout, a PING
/// after half the stall timeout of silence with requests waiting, the stall
/// itself, and each request's timeout (docs/BEHAVIOUR.md, "A silent
/// connection"). It is told what happens (`opened`, `received`,
/// `pingAnswered`) and asked, with the requests in flight, what to do and
/// when to ask next (`check`). No I/O and no clock of its own: the client
/// passes monotonic time, tests a manual clock.
struct HTTP2Liveness: Sendable {
    struct Limits: Hashable, Sendable {
        var connectTimeout: Double
        var requestTimeout: Double
        /// Requests waiting this long with nothing at all back: the connection is dead.
        var stallTimeout: Double
    }

    /// A request in flight, as the check sees it.
    struct Request: Hashable, Sendable {
        var id: Int32
        var started: EpochTime
        /// Its HEADERS went out.
        var sent: Bool
    }

    enum Ending: Hashable, Sendable {
        /// Not connected (name, TCP, TLS, HTTP/2) within `connectTimeout`.
        case connectTimedOut
        /// `requests` were sent and nothing came back for `quiet` seconds.
        case stalled(requests: Int, quiet: Double)
    }

    /// What to do now, and when to check again.
    struct Decision: Hashable, Sendable {
        /// Close the connection (nothing else is then done).
        var end: Ending?
        /// Ask the server with a PING whether it is there.
        var ping = false
        /// Requests past their timeout: cancel them (RST_STREAM) and fail them.
        var timedOut: [Int32] = []
        /// When to check next; nil: not until something happens.
        var next: EpochTime?
    }

    /// The scan over the requests runs at most this often.
    static let scanInterval = 0.1

    let limits: Limits
    private let connectDeadline: EpochTime
    private var isOpen = false
    private var lastReceived: EpochTime
    private var pingOutstanding = false
    private var nextScan = EpochTime(seconds: -.greatestFiniteMagnitude)

    /// A connection starting at `now` (its name lookup, if any, included).
    init(limits: Limits, startingAt now: EpochTime) {
        self.limits = limits
        connectDeadline = now + limits.connectTimeout
        lastReceived = now
    }

    /// TLS and HTTP/2 are up: from now on the requests are watched.
    mutating func opened() { isOpen = true }

    /// Something (anything) came from the server.
    mutating func received(at now: EpochTime) { lastReceived = now }

    /// A PING came back: another may be sent when the connection next goes quiet.
    mutating func pingAnswered() { pingOutstanding = false }

    /// Decides what the time `now` calls for, given the requests in flight.
    mutating func check(at now: EpochTime, requests: some Collection<Request>) -> Decision {
        check(at: now, open: requests.count, requests: requests)
    }

    /// `check(at:requests:)` with the count of `requests` known: they are
    /// walked only when a scan is due (at most every `scanInterval`).
    mutating func check(at now: EpochTime, open: Int, requests: some Sequence<Request>) -> Decision {
        guard isOpen else {
            if now >= connectDeadline { return Decision(end: .connectTimedOut) }
            return Decision(next: connectDeadline)
        }
        guard open > 0 else { return Decision() }
        guard now >= nextScan else { return Decision(next: nextScan) }
        nextScan = now + Self.scanInterval
        var sent = 0
        var oldestSent = EpochTime.distantFuture
        for request in requests where request.sent {
            sent += 1
            oldestSent = min(oldestSent, request.started)
        }
        // Nothing sent yet: nothing to wait for (not even a timeout).
        guard sent > 0 else { return Decision(next: nextScan) }
        let quiet = now - lastReceived
        let waited = now - oldestSent
        if quiet >= limits.stallTimeout, waited >= limits.stallTimeout {
            return Decision(end: .stalled(requests: sent, quiet: quiet))
        }
        var decision = Decision(next: nextScan)
        // A live server answers a PING at once, even while a push's answer is slow.
        if quiet >= limits.stallTimeout / 2, waited >= limits.stallTimeout / 2, !pingOutstanding {
            pingOutstanding = true
            decision.ping = true
        }
        for request in requests where now - request.started >= limits.requestTimeout {
            decision.timedOut.append(request.id)
        }
        return decision
    }
}
