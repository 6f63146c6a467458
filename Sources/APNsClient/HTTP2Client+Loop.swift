import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// The loop thread (`pb-apns`): takes queued requests, drives the one
/// connection, sleeps in `poll` until the socket, a wake-up or the next
/// deadline, and at the end fails what is left.
extension HTTP2Client {
    /// Times a request refused unprocessed is sent again before it fails.
    static let maximumRefusals = 3

    /// Fails every request waiting for a stream with `error`.
    private func failWaiting(_ error: HTTP2TransportError) {
        let left = waiting
        waiting.removeAll()
        for exchange in left { exchange.finish(.failure(error)) }
    }

    func run() {
        let clock = MonotonicClock()
        var descriptors = [pollfd(fd: wakeSignal.descriptor, events: Int16(POLLIN), revents: 0), pollfd()]
        while true {
            let (submissions, stopping, stopDeadline) = shared.withLock { state in
                let queue = state.queue
                state.queue.removeAll(keepingCapacity: true)
                return (queue, state.stopping, state.stopDeadline)
            }
            waiting.append(contentsOf: submissions)
            var now = clock.now()
            let inFlight = connection?.activeStreams ?? 0
            if stopping && (now >= stopDeadline || (waiting.isEmpty && inFlight == 0)) { break }
            if connection == nil, !waiting.isEmpty {
                connection = HTTP2Connection(origin: origin, tls: tls, lookup: lookup, limits: limits, now: now)
            }
            if let connection {
                connection.continueLookup()
                while connection.canOpenStream, let next = waiting.popFirst() {
                    connection.submit(next, now: now)
                }
                connection.flush()
            }
            var wakeAt = connection?.checkTimers(now: now)
            collect()
            if stopping { wakeAt = min(wakeAt ?? stopDeadline, stopDeadline) }
            // Sleep only if nothing was queued meanwhile; a submitter that sees
            // `sleeping` wakes us, one that does not is picked up right away.
            let idle = shared.withLock { state -> Bool in
                state.sleeping = state.queue.isEmpty && !state.stopping
                return state.sleeping
            }
            var timeout: Int32 = -1
            if !idle || (connection == nil && !waiting.isEmpty) {
                timeout = 0
            } else if let wakeAt {
                timeout = Int32(max(0, min(3_600_000, ((wakeAt - now) * 1000).rounded(.up))))
            }
            let socket = connection?.pollEvents
            descriptors[1] = pollfd(fd: socket?.descriptor ?? -1, events: socket?.events ?? 0, revents: 0)
            descriptors[0].revents = 0
            _ = poll(&descriptors, socket == nil ? 1 : 2, timeout)
            shared.withLock { $0.sleeping = false }
            if descriptors[0].revents != 0 { wakeSignal.clear() }
            now = clock.now()
            if let connection, socket != nil, descriptors[1].revents != 0 {
                connection.handle(descriptors[1].revents, now: now)
            }
            collect()
        }
        let late = shared.withLock { state in
            let queue = state.queue
            state.queue.removeAll()
            state.stopping = true
            return queue
        }
        connection?.abandon(.shutdown)
        connection = nil
        waiting.append(contentsOf: late)
        failWaiting(.shutdown)
        // Marked stopped in the same lock that takes the waiters: one that
        // comes later sees `stopped` and does not wait.
        let waitingForStop = shared.withLock { state in
            state.stopped = true
            defer { state.waitingForStop.removeAll() }
            return state.waitingForStop
        }
        for waiter in waitingForStop { waiter.resume() }
    }

    private var limits: HTTP2Connection.Limits {
        .init(
            liveness: .init(
                connectTimeout: options.connectTimeout, requestTimeout: options.requestTimeout,
                stallTimeout: options.stallTimeout),
            maximumStreams: options.maximumStreams)
    }

    /// Takes back refused requests (to send again first, a bounded number
    /// of times) and a closed connection. A connection that never opened
    /// fails every waiting request with its error: the caller's retry
    /// policy paces the next attempt.
    private func collect() {
        guard let connection else { return }
        var again: [HTTP2Exchange] = []
        for var exchange in connection.takeRefused() {
            exchange.refusals += 1
            if exchange.refusals > Self.maximumRefusals {
                exchange.finish(.failure(HTTP2TransportError(
                    .stream, "\(origin.authority) refused the request \(Self.maximumRefusals + 1) times")))
            } else {
                again.append(exchange)
            }
        }
        waiting.prepend(contentsOf: again)
        guard connection.state == .closed else { return }
        self.connection = nil
        if connection.stalledStreams > 0 { options.onConnectionReplaced?(connection.stalledStreams) }
        if !connection.wasOpen {
            let error = connection.closeError ?? HTTP2TransportError(.connect, "no connection to \(origin.authority)")
            failWaiting(error)
        }
    }
}
