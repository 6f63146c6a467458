import PrintBridgeCore
import TLSEngine

#if canImport(Glibc)
import Glibc
#endif

/// The byte pump: what `poll` reported, bytes from TLS into the HTTP/2
/// session, and the session's frames out through TLS in large writes.
extension HTTP2Connection {
    /// Acts on what `poll` reported for the socket.
    func handle(_ revents: Int16, now: EpochTime) {
        switch state {
        case .connecting:
            guard let socket else { return }
            socket.connectFinished()
            connectProgressed(socket)
        case .handshaking:
            continueHandshake()
        case .open:
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(now: now) }
            if state == .open { flush() }
        case .resolving, .closed:
            break
        }
    }

    private func read(now: EpochTime) {
        guard let tls, let session else { return }
        while state == .open {
            let count: Int
            do {
                switch try tls.read(into: &receiving) {
                case .moved(let moved): count = moved
                case .wait: return
                case .closed: return close(HTTP2TransportError(.connectionLost, "\(origin.authority) closed the connection"))
                }
            } catch {
                return close(lost(error))
            }
            liveness.received(at: now)
            do {
                try session.receive(receiving[..<count])
            } catch {
                close(error)
            }
            if session.pingReceived {
                session.pingReceived = false
                liveness.pingAnswered()
            }
        }
    }

    /// Writes what nghttp2 has to send, in large TLS writes, until the socket is full.
    func flush() {
        guard state == .open, let tls, let session else { return }
        while true {
            if outgoingSent == outgoing.count {
                outgoing.removeAll(keepingCapacity: true)
                outgoingSent = 0
                do {
                    try session.send(into: &outgoing, upTo: 65536)
                } catch {
                    close(error)
                    return
                }
                if outgoing.isEmpty {
                    writeBlocked = false
                    // After a GOAWAY, the connection ends once its last stream has.
                    if session.isFinished { close(nil) }
                    return
                }
            }
            do {
                guard case .moved(let written) = try tls.write(outgoing, from: outgoingSent), written > 0 else {
                    writeBlocked = true
                    return
                }
                outgoingSent += written
            } catch {
                return close(lost(error))
            }
        }
    }

    private func lost(_ failure: TLSConnection.Failure) -> HTTP2TransportError {
        HTTP2TransportError(.connectionLost, "connection to \(origin.authority) lost: \(failure.description)")
    }
}
