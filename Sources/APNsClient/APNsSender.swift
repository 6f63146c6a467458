import NamedThreads
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

    public init(
        configuration: APNsConfiguration, key: APNsSigningKey, client: HTTP2Client? = nil,
        clock: any EpochClock = SystemClock(), retry: RetryPolicy = .init(), tokenPolicy: ProviderTokenPolicy = .init(),
        sleep: @escaping @Sendable (Double) async -> Void = { seconds in
            // Not Task.sleep: it would start libdispatch's pool (WorkQueue says why).
            try? await WorkQueue.sleep(seconds: seconds)
        },
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
    /// batch, and their answers are judged on the connection's thread and
    /// handed to `receiver` from there: no task, continuation or wake-up a
    /// push. (A task group of `send(_:)` spent ~21,000 instructions a push
    /// outside the connection's thread; with this and `HTTP2Fields` the
    /// sender went from 66,195 to 50,935 instructions a request, callgrind
    /// on apns_benchmark.py --callgrind-sender.) A push to be tried again (429, 500, 503, a lost
    /// connection, an expired provider token) goes on in a task of its own,
    /// with the same apns-id, as `send(_:)` would.
    public func send(_ pushes: [TaggedPush], to receiver: any PushOutcomeReceiver) {
        guard !pushes.isEmpty else { return }
        guard let authorization = tokens.withLock({ $0.authorization(at: clock.now()) }) else {
            for tagged in pushes { receiver.received(.gaveUp(cause: .signing, attempts: 1), tag: tagged.tag) }
            return
        }
        let batch = FirstAttempts(sender: self, pushes: pushes, receiver: receiver)
        client.send(
            pushes.indices.lazy.map { Self.request(for: pushes[$0].push, apnsID: batch.apnsIDs[$0], authorization: authorization) },
            to: batch)
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
            let result: Result<HTTP2Response, HTTP2TransportError>
            do {
                result = .success(try await client.send(Self.request(for: push, apnsID: attempts.apnsID, authorization: authorization)))
            } catch let error as HTTP2TransportError {
                result = .failure(error)
            } catch {
                result = .failure(HTTP2TransportError(.connectionLost, "\(error)"))
            }
            switch judge(result, of: push, &attempts) {
            case .done(let outcome): return outcome
            case .backOff: await backOff(after: attempts.made)
            case .again: continue
            }
        }
        return .gaveUp(cause: attempts.lastProblem, attempts: attempts.made)
    }

    /// An attempt's result, judged as Apple documents (the type's comment).
    func judge(_ result: Result<HTTP2Response, HTTP2TransportError>, of push: Push, _ attempts: inout Attempts) -> Next {
        let response: HTTP2Response
        switch result {
        case .failure(let error):
            if error.isShutdown { return .done(.gaveUp(cause: .shutDown, attempts: attempts.made)) }
            attempts.lastProblem = .connection(error.message)
            return .backOff
        case .success(let answer):
            response = answer
        }
        if response.status == 200 { return .done(.delivered(apnsID: response.fields.value("apns-id", reusing: attempts.apnsID) ?? attempts.apnsID)) }
        let reason = Self.reason(in: response)
        switch response.status {
        case 410:
            onTokenRejected(push, .remove, reason)
            return .done(.rejected(status: 410, reason: reason, tokenAction: .remove))
        case 400 where reason.disablesToken:
            onTokenRejected(push, .disable, reason)
            return .done(.rejected(status: 400, reason: reason, tokenAction: .disable))
        case 403 where reason == .expiredProviderToken:
            if !attempts.renewedForExpiry, tokens.withLock({ $0.renewAfterExpiry(at: clock.now()) }) != nil {
                attempts.renewedForExpiry = true
                attempts.made -= 1  // the retry with a fresh token is not a failure of the push
                return .again
            }
            return .done(.rejected(status: 403, reason: reason, tokenAction: nil))
        case 429, 500, 503:
            attempts.lastProblem = .busy(status: response.status, reason: reason)
            return .backOff
        default:
            return .done(.rejected(status: response.status, reason: reason, tokenAction: nil))
        }
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
        let fields = HTTP2Fields(capacity: capacity) { fields in
            fields.add(":path", "/3/device/", push.token)
            fields.add("authorization", authorization)
            fields.add("apns-push-type", push.kind.rawValue)
            fields.add("apns-topic", push.topic)
            fields.add("apns-priority", decimal: push.priority)
            fields.add("apns-expiration", decimal: max(0, push.expiration.wholeSeconds))
            // New in every request: never indexed (HTTP2Session.submit says why).
            fields.add("apns-id", apnsID, neverIndexed: true)
            if let collapseID = push.collapseID { fields.add("apns-collapse-id", collapseID) }
        }
        return HTTP2Request(fields: fields, body: push.payload)
    }

    /// Apple's reason from an error body ({"reason": "…"}), or the status as text.
    static func reason(in response: HTTP2Response) -> APNsReason {
        if let json = try? JSONParser.parse(response.body), let reason = json["reason"]?.stringValue {
            return APNsReason(reason)
        }
        return .other("HTTP \(response.status)")
    }
}

/// The first attempts of one `send(_:to:)` batch: each answer is judged on
/// the connection's thread; a push to be tried again goes on in a task.
private final class FirstAttempts: HTTP2ResponseReceiver {
    let sender: APNsSender
    let pushes: [TaggedPush]
    /// Each push's apns-id, kept for its retries (the same id every attempt).
    let apnsIDs: [String]
    let receiver: any PushOutcomeReceiver

    init(sender: APNsSender, pushes: [TaggedPush], receiver: any PushOutcomeReceiver) {
        self.sender = sender
        self.pushes = pushes
        self.receiver = receiver
        apnsIDs = pushes.map { $0.push.apnsID ?? Push.randomID() }
    }

    func received(_ result: Result<HTTP2Response, HTTP2TransportError>, tag position: Int) {
        // The push is read in place: copying it (a dozen references) cost
        // more than judging most answers.
        var attempts = APNsSender.Attempts(apnsID: apnsIDs[position], made: 1)
        let next = sender.judge(result, of: pushes[position].push, &attempts)
        if case .done(let outcome) = next {
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
