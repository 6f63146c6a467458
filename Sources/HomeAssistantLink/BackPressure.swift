/// The link's back-pressure rule, one value: when the consumer has
/// `pauseAt` events not yet taken, the link stops reading the socket (TCP
/// then pushes back on Home Assistant, which closes a connection whose
/// client stays far behind: websocket_api/const.py, MAX_PENDING_MSG 4,096,
/// or PENDING_MSG_PEAK 1,024 for 5 s); once the consumer is down to
/// `resumeAt`, the link's thread is woken to read again. Pure: the link
/// holds it behind a lock and does what each answer says.
public struct BackPressure: Hashable, Sendable {
    public static let pauseAt = 1024
    public static let resumeAt = 256

    /// Events handed to the consumer and not yet taken.
    public private(set) var queued = 0
    /// Reading is stopped.
    public private(set) var paused = false
    /// The consumer caught up and the link's thread was asked to read again.
    public private(set) var resumeAsked = false

    public init() {}

    /// An event went to the consumer: true when reading must stop now.
    public mutating func yielded() -> Bool {
        queued += 1
        guard !paused, queued >= Self.pauseAt else { return false }
        paused = true
        return true
    }

    /// The consumer took one: true when the link's thread must be woken.
    public mutating func consumed() -> Bool {
        queued -= 1
        guard paused, !resumeAsked, queued <= Self.resumeAt else { return false }
        resumeAsked = true
        return true
    }

    /// On the link's thread, woken: true when reading resumes now.
    public mutating func resumeIfAsked() -> Bool {
        guard resumeAsked else { return false }
        resumeAsked = false
        paused = false
        return true
    }
}
