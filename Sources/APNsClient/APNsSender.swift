import PrintBridgeCore
import Synchronization

/// Sends pushes to APNs and handles every answer the way Apple documents.
///
/// - 200: delivered, with the `apns-id`.
/// - 410 Unregistered / ExpiredToken: rejected; the token is dead (`onTokenRejected(.remove)`).
/// - 400 BadDeviceToken / DeviceTokenNotForTopic: rejected; the token is
///   disabled (`.disable`): usually the wrong environment or bundle id.
/// - 403 ExpiredProviderToken: a new provider token, one more try.
/// - 429, 500, 503 and lost connections: retried with exponential back-off
///   and jitter, a bounded number of times.
/// - 413 and any other 4xx: rejected with Apple's reason, not retried.
public final class APNsSender: PushSender {
    public typealias TokenRejection = @Sendable (Push, PushOutcome.TokenAction, APNsReason) -> Void

    public let configuration: APNsConfiguration
    private let client: HTTP2Client
    private let tokens: Mutex<ProviderTokenCache>
    private let clock: any EpochClock
    private let retry: RetryPolicy
    private let sleep: @Sendable (Double) async -> Void
    private let onTokenRejected: TokenRejection
    /// The fields pushes alike share, kept from batch to batch (the client's thread's own).
    let sharedFields = SharedFields()

    public init(
        configuration: APNsConfiguration, key: APNsSigningKey, client: HTTP2Client? = nil,
        clock: any EpochClock = SystemClock(), retry: RetryPolicy = .init(), tokenPolicy: ProviderTokenPolicy = .init(),
        sleep: @escaping @Sendable (Double) async -> Void = { seconds in try? await Task.sleep(for: .seconds(seconds)) },
        onTokenRejected: @escaping TokenRejection = { _, _, _ in }
    ) throws(HTTP2TransportError) {
        self.configuration = configuration
        if let client {
            self.client = client
        } else {
            self.client = try HTTP2Client(configuration: configuration)
        }
        tokens = Mutex(ProviderTokenCache(teamID: configuration.teamID, keyID: configuration.keyID, key: key, policy: tokenPolicy))
        self.clock = clock
        self.retry = retry
        self.sleep = sleep
        self.onTokenRejected = onTokenRejected
    }

    /// Loads the key named in `configuration` and makes a sender.
    public convenience init(configuration: APNsConfiguration, clock: any EpochClock = SystemClock()) throws {
        try self.init(configuration: configuration, key: try APNsSigningKey(path: configuration.keyPath), clock: clock)
    }

    /// Provider tokens made so far.
    public var providerTokenRenewals: Int { tokens.withLock { $0.renewals } }

    /// Stops the connection after letting pushes in flight finish (bounded).
    public func shutdown(grace: Double = 5) {
        client.shutdown(grace: grace)
    }

    public func send(_ push: Push) async -> PushOutcome {
        await send(push, after: Attempts(apnsID: push.apnsID ?? Push.randomID()))
    }

    /// Starts every push and returns at once; `receiver` gets each one's
    /// outcome with its tag. The first attempts go to the connection as one
    /// batch: each request is written on the connection's thread as its
    /// stream opens, into memory reused from one request to the next (the
    /// fields pushes alike share written once), and its answer is judged
    /// there and handed to `receiver`: no task, continuation, wake-up or
    /// buffer a push. (A task group of `send(_:)` spent ~21,000 instructions
    /// a push outside the connection's thread; callgrind on
    /// scripts/bench/apns_benchmark.py --callgrind-sender, README has the
    /// figures.) A push to be tried again (429, 500, 503, a lost
    /// connection, an expired provider token) goes on in a task of its own,
    /// with the same apns-id, as `send(_:)` would.
    public func send(_ pushes: [TaggedPush], to receiver: any PushOutcomeReceiver) {
        guard !pushes.isEmpty else { return }
        guard let authorization = tokens.withLock({ $0.authorization(at: clock.now()) }) else {
            for tagged in pushes { receiver.received(.gaveUp(cause: .signing, attempts: 1), tag: tagged.tag) }
            return
        }
        client.send(FirstAttempts(sender: self, pushes: pushes, authorization: authorization, receiver: receiver), count: pushes.count)
    }

    /// One push's attempts so far.
    struct Attempts {
        let apnsID: String
        var made = 0
        var renewedForExpiry = false
        var lastProblem = GiveUpCause.connection("no attempt made")
    }

    /// What an attempt's result leaves to do.
    enum Next {
        case done(PushOutcome)
        /// Wait (`backOff`), then try again if attempts are left.
        case backOff
        /// Try again now (a fresh provider token), not counted as a failure.
        case again
    }

    /// Sends `push` until it is done or its attempts run out, from `attempts` on.
    func send(_ push: Push, after attempts: Attempts) async -> PushOutcome {
        var attempts = attempts
        while attempts.made < retry.maximumAttempts {
            attempts.made += 1
            guard let authorization = tokens.withLock({ $0.authorization(at: clock.now()) }) else {
                return .gaveUp(cause: .signing, attempts: attempts.made)
            }
            let next: Next
            do {
                let response = try await client.send(Self.request(for: push, apnsID: attempts.apnsID, authorization: authorization))
                next = HTTP2Answer.lending(response) { judge($0, &attempts) }
            } catch let error as HTTP2TransportError {
                next = judge(failure: error, &attempts)
            } catch {
                next = judge(failure: HTTP2TransportError(.connectionLost, "\(error)"), &attempts)
            }
            switch next {
            case .done(let outcome):
                tellRejection(of: push, in: outcome)
                return outcome
            case .backOff: await backOff(after: attempts.made)
            case .again: continue
            }
        }
        return .gaveUp(cause: attempts.lastProblem, attempts: attempts.made)
    }

    /// A failed attempt, judged: the client stopped, or try again after a while.
    func judge(failure error: HTTP2TransportError, _ attempts: inout Attempts) -> Next {
        if error.isShutdown { return .done(.gaveUp(cause: .shutDown, attempts: attempts.made)) }
        attempts.lastProblem = .connection(error.message)
        return .backOff
    }

    /// An answer, judged as Apple documents (the type's comment). A token
    /// to remove or disable is the caller's to tell (`tellRejection`).
    func judge(_ answer: borrowing HTTP2Answer, _ attempts: inout Attempts) -> Next {
        if answer.status == 200 { return .done(.delivered(apnsID: answer.value("apns-id", reusing: attempts.apnsID) ?? attempts.apnsID)) }
        let reason = Self.reason(in: answer.body, status: answer.status)
        switch answer.status {
        case 410:
            return .done(.rejected(status: 410, reason: reason, tokenAction: .remove))
        case 400 where reason.disablesToken:
            return .done(.rejected(status: 400, reason: reason, tokenAction: .disable))
        case 403 where reason == .expiredProviderToken:
            if !attempts.renewedForExpiry, tokens.withLock({ $0.renewAfterExpiry(at: clock.now()) }) != nil {
                attempts.renewedForExpiry = true
                attempts.made -= 1  // the retry with a fresh token is not a failure of the push
                return .again
            }
            return .done(.rejected(status: 403, reason: reason, tokenAction: nil))
        case 429, 500, 503:
            attempts.lastProblem = .busy(status: answer.status, reason: reason)
            return .backOff
        default:
            return .done(.rejected(status: answer.status, reason: reason, tokenAction: nil))
        }
    }

    /// Tells `onTokenRejected` when an outcome removes or disables the push's token.
    func tellRejection(of push: Push, in outcome: PushOutcome) {
        if case .rejected(_, let reason, let action?) = outcome { onTokenRejected(push, action, reason) }
    }

    func backOff(after attempt: Int) async {
        guard attempt < retry.maximumAttempts else { return }
        await sleep(retry.delay(afterAttempt: attempt, random: Double.random(in: 0...1)))
    }

    /// The HTTP/2 request for a push: path, APNs headers, payload (public
    /// for the benchmark that counts a push's instructions from HA frame to
    /// request, Benchmarks/Sources/PathInstructions).
    /// `authorization`: `bearer <provider token>`. The fields are written
    /// straight into one buffer: no string is made for the path, the
    /// numbers or the names.
    public static func request(for push: Push, apnsID: String, authorization: String) -> HTTP2Request {
        // 256: the names, the prefixes, "/3/device/", the push type and two numbers.
        let capacity = 256 + authorization.utf8.count + push.token.utf8.count + push.topic.utf8.count
            + apnsID.utf8.count + (push.collapseID?.utf8.count ?? 0)
        var fields = HTTP2Fields(capacity: capacity)
        writeOwnFields(token: push.token, apnsID: apnsID, into: &fields)
        writeSharedFields(of: push, authorization: authorization, into: &fields)
        return HTTP2Request(fields: fields, body: push.payload)
    }

    /// A push's own fields: its path (the device token) and its apns-id.
    static func writeOwnFields(token: String, apnsID: String, into fields: inout some HTTP2FieldAppending & ~Copyable) {
        fields.append(":path", "/3/device/", token)
        // New in every request: never indexed (HTTP2Session.submit says why).
        fields.append("apns-id", apnsID, neverIndexed: true)
    }

    /// The fields pushes alike in kind, priority, expiry, topic and collapse
    /// id send the same (under one provider token: `SharedFields`).
    static func writeSharedFields(of push: Push, authorization: String, into fields: inout HTTP2Fields) {
        fields.append("authorization", authorization)
        fields.append("apns-push-type", push.kind.rawValue)
        fields.append("apns-topic", push.topic)
        fields.append("apns-priority", decimal: push.priority)
        fields.append("apns-expiration", decimal: max(0, push.expiration.wholeSeconds))
        if let collapseID = push.collapseID { fields.append("apns-collapse-id", collapseID) }
    }

    /// Apple's reason from an error body ({"reason": "…"}), or the status as text.
    static func reason(in body: UnsafeRawBufferPointer, status: Int) -> APNsReason {
        if let json = try? JSONParser.parse(body), let reason = json["reason"]?.stringValue {
            return APNsReason(reason)
        }
        return .other("HTTP \(status)")
    }
}

/// The first attempts of one `send(_:to:)` batch: each request is written,
/// and its answer judged, on the connection's thread; a push to be tried
/// again goes on in a task.
private final class FirstAttempts: HTTP2RequestBatch {
    let sender: APNsSender
    let pushes: [TaggedPush]
    /// Each push's apns-id, kept for its retries (the same id every attempt).
    let apnsIDs: [String]
    let authorization: String
    let receiver: any PushOutcomeReceiver

    init(sender: APNsSender, pushes: [TaggedPush], authorization: String, receiver: any PushOutcomeReceiver) {
        self.sender = sender
        self.pushes = pushes
        self.authorization = authorization
        self.receiver = receiver
        apnsIDs = pushes.map { $0.push.apnsID ?? Push.randomID() }
    }

    func request(_ position: Int, writing fields: inout HTTP2FieldBuffer) -> [UInt8] {
        // The push is read in place: a copy (a dozen references) cost more
        // than writing most of its fields.
        pushes.withUnsafeBufferPointer { pushes in
            let push = pushes.baseAddress! + position
            APNsSender.writeOwnFields(token: push.pointee.push.token, apnsID: apnsIDs[position], into: &fields)
            fields.append(contentsOf: sender.sharedFields.fields(for: push, authorization: authorization))
            return push.pointee.push.payload
        }
    }

    func answered(_ position: Int, with answer: borrowing HTTP2Answer) {
        var attempts = APNsSender.Attempts(apnsID: apnsIDs[position], made: 1)
        let next = sender.judge(answer, &attempts)
        finish(position, next, attempts)
    }

    func failed(_ position: Int, with error: HTTP2TransportError) {
        var attempts = APNsSender.Attempts(apnsID: apnsIDs[position], made: 1)
        let next = sender.judge(failure: error, &attempts)
        finish(position, next, attempts)
    }

    /// Hands an outcome on at once, or tries the push again in a task.
    private func finish(_ position: Int, _ next: APNsSender.Next, _ attempts: APNsSender.Attempts) {
        if case .done(let outcome) = next {
            if case .rejected = outcome { sender.tellRejection(of: pushes[position].push, in: outcome) }
            receiver.received(outcome, tag: pushes[position].tag)
            return
        }
        let tagged = pushes[position]
        Task { [sender, receiver, attempts] in
            if case .backOff = next { await sender.backOff(after: attempts.made) }
            receiver.received(await sender.send(tagged.push, after: attempts), tag: tagged.tag)
        }
    }
}

/// The fields pushes alike share (`APNsSender.writeSharedFields`), as last
/// written: a fan-out's pushes of one event, batch after batch, write them
/// once. Touched only by batches' `request`, on the client's thread.
final class SharedFields: @unchecked Sendable {
    // @exclusivity(unchecked): the client's thread's own (HTTP2Client says why).
    @exclusivity(unchecked) private var fields = HTTP2Fields(capacity: 512)
    /// What `fields` were written from (nil: nothing yet), compared part by
    /// part with the next push: a copy of the push to compare cost more
    /// than the comparison.
    @exclusivity(unchecked) private var kind: Push.Kind?
    @exclusivity(unchecked) private var priority = 0
    @exclusivity(unchecked) private var expiration = 0
    @exclusivity(unchecked) private var topic = ""
    @exclusivity(unchecked) private var collapseID: String?
    @exclusivity(unchecked) private var authorization = ""

    func fields(for tagged: UnsafePointer<TaggedPush>, authorization: String) -> HTTP2Fields {
        if kind == tagged.pointee.push.kind, priority == tagged.pointee.push.priority,
           expiration == tagged.pointee.push.expiration.wholeSeconds, topic == tagged.pointee.push.topic,
           collapseID == tagged.pointee.push.collapseID, self.authorization == authorization {
            return fields
        }
        let push = tagged.pointee.push
        fields.removeAll(keepingCapacity: true)
        APNsSender.writeSharedFields(of: push, authorization: authorization, into: &fields)
        kind = push.kind
        priority = push.priority
        expiration = push.expiration.wholeSeconds
        topic = push.topic
        collapseID = push.collapseID
        self.authorization = authorization
        return fields
    }
}
