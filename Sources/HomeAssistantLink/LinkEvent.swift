import PrintBridgeCore

/// What the link reports, in order, through `events`.
public enum LinkEvent: Sendable {
    /// What a frame's messages mean to the printers (read and matched on the
    /// link's thread by its `HAFrameReader`).
    case printers([PrinterInput])
    /// A result (the snapshot among them) or a frame over 1 MiB was handled:
    /// the memory it took can go back to the system.
    case bulkHandled
    /// Protocol news for logs and metrics.
    case notice(HASession.Notice)
    case connected
    case disconnected(DisconnectCause)
    /// Every frame exactly as received, when the link was made with `tapsFrames`
    /// (for `printbridge record`).
    case received([UInt8])
}

/// Why the connection to Home Assistant ended (or never began).
public enum DisconnectCause: Hashable, Sendable, CustomStringConvertible {
    /// `stop` was called: our own shutdown, news rather than a problem.
    case shuttingDown
    /// No connection was made; libwebsockets' words (a refused port, a TLS
    /// verification failure) when it gave some.
    case connectFailed(String)
    /// The connection was open and closed (HA restarting, the network).
    case closed
    /// The protocol ended it (`HASession`: no pong, authentication rejected, …).
    case protocolEnded(String)
    /// HA sent a message over the limit (HA_MAX_MESSAGE_MB).
    case messageTooLarge(limitMiB: Int)

    public var description: String {
        switch self {
        case .shuttingDown: return "shutting down"
        case .connectFailed(let detail): return detail
        case .closed: return "connection closed"
        case .protocolEnded(let reason): return reason
        case .messageTooLarge(let limit):
            return "a message from Home Assistant is larger than \(limit) MiB (HA_MAX_MESSAGE_MB)"
        }
    }

    /// A TLS failure while connecting (the certificate, most often).
    public var isTLSFailure: Bool {
        if case .connectFailed(let detail) = self { return detail.contains("SSL") || detail.contains("TLS") }
        return false
    }
}
