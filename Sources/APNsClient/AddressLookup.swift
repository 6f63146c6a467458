import NamedThreads
import Synchronization

/// Looks the client's host up beside its loop: getaddrinfo blocks for as
/// long as DNS takes, so it runs on a thread of its own (`pb-apns-dns`), and
/// the addresses come back to the loop through `take`, with a wake-up.
///
/// One lookup at a time, as swift-nio's GetaddrinfoResolver keeps one serial
/// offload queue per event loop: a connection that asks while one runs (the
/// previous attempt timed out waiting for it) gets that lookup's answer, so
/// a slow DNS server never piles up threads. An answer nobody wants any more
/// (`cancel`) is dropped rather than kept for a later connection.
final class AddressLookup: Sendable {
    typealias Resolve = @Sendable (_ host: String, _ port: Int) -> Result<[SocketAddress], HTTP2TransportError>

    private enum State {
        case idle
        /// A lookup runs; `wanted`: a connection waits for it.
        case running(wanted: Bool)
        case answered(Result<[SocketAddress], HTTP2TransportError>)
    }

    private let host: String
    private let port: Int
    private let resolve: Resolve
    private let wake: WakeSignal
    private let state = Mutex(State.idle)

    init(host: String, port: Int, wake: WakeSignal, resolve: @escaping Resolve = SocketAddress.resolve) {
        self.host = host
        self.port = port
        self.wake = wake
        self.resolve = resolve
    }

    /// Starts a lookup unless one runs or an answer waits (the loop thread).
    func request() {
        let start = state.withLock { state -> Bool in
            switch state {
            case .idle:
                state = .running(wanted: true)
                return true
            case .running:
                state = .running(wanted: true)
                return false
            case .answered:
                return false
            }
        }
        guard start else { return }
        do {
            // The thread holds this lookup (and so the wake signal) until it is done.
            _ = try NamedThread("pb-apns-dns") { [self] in finish(resolve(host, port)) }
        } catch {
            state.withLock { $0 = .answered(.failure(HTTP2TransportError(.setUp, "\(error)"))) }
        }
    }

    /// The answer, once there is one (the loop thread).
    func take() -> Result<[SocketAddress], HTTP2TransportError>? {
        state.withLock { state in
            guard case .answered(let result) = state else { return nil }
            state = .idle
            return result
        }
    }

    /// Nobody waits any more: a running lookup's answer will be dropped.
    func cancel() {
        state.withLock { state in
            switch state {
            case .running: state = .running(wanted: false)
            case .answered: state = .idle
            case .idle: break
            }
        }
    }

    private func finish(_ result: Result<[SocketAddress], HTTP2TransportError>) {
        let wanted = state.withLock { state -> Bool in
            guard case .running(wanted: true) = state else {
                state = .idle
                return false
            }
            state = .answered(result)
            return true
        }
        if wanted { wake.signal() }
    }
}
