import PrintBridgeCore

/// Keeps one Live Activity broadcast channel per printer (iOS 18, issue
/// 52): what to ask APNs' channel management API and when, as a pure state
/// machine (inputs and the time in, operations and store changes out); the
/// agent's loop runs the operations (`ChannelManager`) and the store
/// changes, and hands the answers back.
///
/// - Every printer Home Assistant has gets a channel (`create`); the id is
///   saved in the store and given to the app (`GET /api/printers/{prefix}/channel`).
/// - At the start the app's channels are listed (`list`): a stored channel
///   APNs no longer knows is forgotten and made again; a deletion APNs has
///   done already is done. Channels it did not make are never touched: the
///   same key and bundle id may serve other agents (other homes).
/// - A printer missing from Home Assistant's full list of printers (a
///   snapshot) for `retireAfter` has its channel deleted (`delete`); the
///   deletion is kept in the store until APNs has done it.
/// - A broadcast APNs refuses because the channel is gone
///   (ChannelNotRegistered) forgets it, and a new one is made.
/// - An answer worth another try (429, 5xx, no answer, an expired provider
///   token) is tried again after a back-off: 2 s, doubling, at most
///   `maximumDelay`; nothing is dropped. A lasting refusal (the app's
///   Broadcast capability off: FeatureNotEnabled; 10,000 channels:
///   CannotCreateChannelConfig; the key's topics: TopicMismatch) stops
///   making channels for `refusalPause` (logged once): the printers' Live
///   Activities are updated token by token meanwhile, as before.
public struct ChannelKeeper: Sendable {
    public enum Operation: Hashable, Sendable, CustomStringConvertible {
        case list
        case create(printer: String)
        case delete(channel: String)

        var isCreate: Bool {
            if case .create = self { return true }
            return false
        }

        public var description: String {
            switch self {
            case .list: return "list"
            case .create(let printer): return "create for \(printer)"
            case .delete(let channel): return "delete \(channel)"
            }
        }
    }

    /// What an operation's answer was.
    public enum Answer: Hashable, Sendable {
        case listed([String])
        case created(String)
        case deleted
        case failed(ChannelFailure)
    }

    /// A change for the store (and the log).
    enum Change: Hashable, Sendable {
        case save(printer: String, channel: String)
        case retire(printer: String)
        case forget(channel: String)
        case sawPrinters([String])
        /// A channel to delete at APNs, kept until it is.
        case queueDeletion(channel: String)
        /// APNs refused channels for good: say so once (the reason), fall back.
        case refused(ChannelFailure)
        /// Another try after a back-off (for the log: what, why, when).
        case retrying(Operation, ChannelFailure, at: EpochTime)
    }

    static let firstDelay = 2.0
    var maximumDelay = 300.0
    /// A printer absent from Home Assistant's snapshots this long is gone.
    var retireAfter = 24 * 3600.0
    /// After a lasting refusal, channels are asked for again after this long.
    var refusalPause = 24 * 3600.0

    private(set) var channels: [String: String]
    private(set) var lastSeen: [String: EpochTime]
    private(set) var deletions: [String]
    /// Printers Home Assistant has (seen in any update).
    private(set) var printers: Set<String> = []
    private var listed = false
    private var inFlight: Set<Operation> = []
    /// Failed operations: attempts so far and when the next may start.
    private var backOff: [Operation: (attempts: Int, due: EpochTime)] = [:]
    /// Until when no channel is made (a lasting refusal), and the refusal.
    private(set) var refusedUntil: EpochTime?
    private var refusal: ChannelFailure?

    init(channels: [String: String], lastSeen: [String: EpochTime], deletions: [String]) {
        self.channels = channels
        self.lastSeen = lastSeen
        self.deletions = deletions
    }

    /// Printers in an update (`complete`: Home Assistant's whole list, a
    /// snapshot). Returns the store changes.
    mutating func saw(_ prefixes: Set<String>, complete: Bool, now: EpochTime) -> [Change] {
        printers.formUnion(prefixes)
        guard complete, !prefixes.isEmpty else { return [] }
        var changes: [Change] = []
        let present = prefixes.filter { channels[$0] != nil }.sorted()
        for prefix in present { lastSeen[prefix] = now }
        if !present.isEmpty { changes.append(.sawPrinters(present)) }
        for (prefix, channel) in channels.sorted(by: { $0.key < $1.key }) where !prefixes.contains(prefix) {
            guard let seen = lastSeen[prefix], now - seen >= retireAfter else { continue }
            channels[prefix] = nil
            lastSeen[prefix] = nil
            printers.remove(prefix)
            if !deletions.contains(channel) { deletions.append(channel) }
            changes.append(.retire(printer: prefix))
        }
        return changes
    }

    /// A broadcast to `channel` was refused: the channel is gone.
    mutating func channelGone(_ channel: String) -> [Change] {
        guard let prefix = channels.first(where: { $0.value == channel })?.key else { return [] }
        channels[prefix] = nil
        lastSeen[prefix] = nil
        return [.forget(channel: channel)]
    }

    /// The operations to start now (marked in flight).
    mutating func start(now: EpochTime) -> [Operation] {
        var wanted: [Operation] = []
        if !listed { wanted.append(.list) }
        wanted += deletions.map { .delete(channel: $0) }
        if listed, refusedUntil.map({ now >= $0 }) ?? true {
            wanted += printers.subtracting(channels.keys).sorted().map { .create(printer: $0) }
        }
        let ready = wanted.filter { operation in
            !inFlight.contains(operation) && (backOff[operation].map { now >= $0.due } ?? true)
        }
        inFlight.formUnion(ready)
        return ready
    }

    /// When the next operation waiting for its back-off (or the end of a
    /// refusal) may start.
    var nextDeadline: EpochTime? {
        let waits = backOff.filter { !inFlight.contains($0.key) }.map(\.value.due)
        let refusal = refusedUntil.flatMap { printers.subtracting(channels.keys).isEmpty ? nil : $0 }
        return (waits + [refusal].compactMap { $0 }).min()
    }

    /// An operation's answer. Returns the store changes.
    mutating func finished(_ operation: Operation, _ answer: Answer, now: EpochTime) -> [Change] {
        inFlight.remove(operation)
        if case .failed(let failure) = answer {
            if failure == .shutDown { return [] }
            if failure.isLasting, operation == .list || operation.isCreate {
                backOff[operation] = nil
                if operation == .list { listed = true }
                let first = refusal == nil
                refusal = failure
                refusedUntil = now + refusalPause
                return first ? [.refused(failure)] : []
            }
            if failure.isLasting, case .delete(let channel) = operation {
                // APNs will not delete it (say, the key lost the topic): stop asking.
                backOff[operation] = nil
                deletions.removeAll { $0 == channel }
                return [.forget(channel: channel), .refused(failure)]
            }
            let attempts = (backOff[operation]?.attempts ?? 0) + 1
            let delay = min(maximumDelay, Self.firstDelay * Double(1 << min(attempts - 1, 16)))
            backOff[operation] = (attempts, now + delay)
            return [.retrying(operation, failure, at: now + delay)]
        }
        backOff[operation] = nil
        switch (operation, answer) {
        case (.list, .listed(let known)):
            listed = true
            let known = Set(known)
            var changes: [Change] = []
            for (prefix, channel) in channels.sorted(by: { $0.key < $1.key }) where !known.contains(channel) {
                channels[prefix] = nil
                changes.append(.forget(channel: channel))
            }
            for channel in deletions where !known.contains(channel) { changes.append(.forget(channel: channel)) }
            deletions.removeAll { !known.contains($0) }
            return changes
        case (.create(let printer), .created(let channel)):
            refusal = nil
            refusedUntil = nil
            guard printers.contains(printer), channels[printer] == nil else {
                // Made for a printer since gone, or twice: delete it again.
                deletions.append(channel)
                return [.queueDeletion(channel: channel)]
            }
            channels[printer] = channel
            lastSeen[printer] = now
            return [.save(printer: printer, channel: channel)]
        case (.delete(let channel), .deleted):
            deletions.removeAll { $0 == channel }
            return [.forget(channel: channel)]
        default:
            return []
        }
    }
}
