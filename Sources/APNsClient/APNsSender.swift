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
/// - A broadcast to a channel (`Push.TokenKind.channel`): 400
///   ChannelNotRegistered / BadChannelId: rejected, the channel is gone
///   (`.remove`: the agent makes a new one); the rest as above.
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

    /// `bearer <provider token>` for another of APNs' APIs made with the
    /// same key (the channel management API, `APNsChannels`); nil when it
    /// cannot be signed.
    func authorization() -> String? { tokens.withLock { $0.authorization(at: clock.now()) } }

    /// After a 403 ExpiredProviderToken from another API: a fresh token
    /// (at most as often as the cache allows), or nil.
    func renewedAuthorization() -> String? { tokens.withLock { $0.renewAfterExpiry(at: clock.now()) } }

    /// Stops the connection after letting pushes in flight finish (bounded).
    public func shutdown(grace: Double = 5) {
        client.shutdown(grace: grace)
    }

    public func send(_ push: Push) async -> PushOutcome {
        await send(push, after: Attempts(apnsID: push.apnsID ?? Push.randomID(), toChannel: push.tokenKind == .channel))
    }

    /// Starts every push and returns at once; `receiver` gets each one's
    /// outcome with its tag. Each first attempt's answer is judged on the
    /// connection's thread as it arrives and handed straight to `receiver`:
    /// no task or continuation a push (a task group of `send(_:)` spent
    /// ~21,000 instructions a push more, callgrind on
    /// scripts/bench/apns_benchmark.py --callgrind-sender). A push to be
    /// tried again (429, 500, 503, a lost connection, an expired provider
    /// token) goes on in a task of its own, with the same apns-id, as
    /// `send(_:)` would.
    public func send(_ pushes: [TaggedPush], to receiver: any PushOutcomeReceiver) {
        guard !pushes.isEmpty else { return }
        guard let authorization = tokens.withLock({ $0.authorization(at: clock.now()) }) else {
            for tagged in pushes { receiver.received(.gaveUp(cause: .signing, attempts: 1), tag: tagged.tag) }
            return
        }
        for tagged in pushes {
            let attempts = Attempts(
                apnsID: tagged.push.apnsID ?? Push.randomID(), made: 1, toChannel: tagged.push.tokenKind == .channel)
            let request = Self.request(for: tagged.push, apnsID: attempts.apnsID, authorization: authorization)
            client.send(request) { [self] result in
                var attempts = attempts
                let next = judge(result, &attempts)
                finish(tagged, next, attempts, to: receiver)
            }
        }
    }

    /// Hands a first attempt's outcome on at once, or tries the push again
    /// in a task (after a wait, for a back-off).
    private func finish(_ tagged: TaggedPush, _ next: Next, _ attempts: Attempts, to receiver: any PushOutcomeReceiver) {
        if case .done(let outcome) = next {
            tellRejection(of: tagged.push, in: outcome)
            return receiver.received(outcome, tag: tagged.tag)
        }
        Task {
            if case .backOff = next { await backOff(after: attempts.made) }
            receiver.received(await send(tagged.push, after: attempts), tag: tagged.tag)
        }
    }

    /// One push's attempts so far.
    struct Attempts {
        let apnsID: String
        var made = 0
        /// A broadcast: its channel, not a token, is what APNs may refuse.
        var toChannel = false
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
            let request = Self.request(for: push, apnsID: attempts.apnsID, authorization: authorization)
            let result: Result<HTTP2Response, HTTP2TransportError>
            do { result = .success(try await client.send(request)) } catch { result = .failure(error) }
            switch judge(result, &attempts) {
            case .done(let outcome):
                tellRejection(of: push, in: outcome)
                return outcome
            case .backOff: await backOff(after: attempts.made)
            case .again: continue
            }
        }
        return .gaveUp(cause: attempts.lastProblem, attempts: attempts.made)
    }

    /// An attempt's result, judged: an answer as Apple documents (the
    /// type's comment); no answer: the client stopped, or try again after a
    /// while. A token to remove or disable is the caller's to tell
    /// (`tellRejection`).
    func judge(_ result: Result<HTTP2Response, HTTP2TransportError>, _ attempts: inout Attempts) -> Next {
        let answer: HTTP2Response
        switch result {
        case .success(let response): answer = response
        case .failure(let error):
            if error.isShutdown { return .done(.gaveUp(cause: .shutDown, attempts: attempts.made)) }
            attempts.lastProblem = .connection(error.message)
            return .backOff
        }
        if answer.status == 200 {
            // A broadcast's answer names the request (apns-request-id), a push's the notification (apns-id).
            let id = answer.headers[attempts.toChannel ? "apns-request-id" : "apns-id"]
            return .done(.delivered(apnsID: id ?? attempts.apnsID))
        }
        let reason = Self.reason(in: answer.body, status: answer.status)
        switch answer.status {
        case 400 where attempts.toChannel && (reason == .channelNotRegistered || reason == .badChannelID):
            return .done(.rejected(status: 400, reason: reason, tokenAction: .remove))
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
    /// `authorization`: `bearer <provider token>`.
    public static func request(for push: Push, apnsID: String, authorization: String) -> HTTP2Request {
        if push.tokenKind == .channel { return broadcast(push, requestID: apnsID, authorization: authorization) }
        var headers = [
            // New in every request: never indexed (HTTP2Header says why).
            HTTP2Header("apns-id", apnsID, neverIndexed: true),
            HTTP2Header("authorization", authorization),
            HTTP2Header("apns-push-type", push.kind.rawValue),
            HTTP2Header("apns-topic", push.topic),
            HTTP2Header("apns-priority", String(push.priority)),
            HTTP2Header("apns-expiration", String(max(0, push.expiration.wholeSeconds))),
        ]
        if let collapseID = push.collapseID { headers.append(HTTP2Header("apns-collapse-id", collapseID)) }
        return HTTP2Request(path: "/3/device/" + push.token, headers: headers, body: push.payload)
    }

    /// A broadcast to a channel: `POST /4/broadcasts/apps/{bundle id}` on the
    /// push host with `apns-channel-id` (Apple, "Sending broadcast push
    /// notification requests to APNs"; parse-community/node-apn
    /// lib/client.js `makePath('broadcasts')`, alexandercerutti/hapns
    /// src/targets/broadcastchannel.ts). The bundle id is in the path, so no
    /// `apns-topic`; the push's id goes as `apns-request-id`, which APNs
    /// answers with. No `apns-collapse-id`: a channel keeps at most its
    /// latest message anyway (message storage policy 1, `APNsChannels`).
    static func broadcast(_ push: Push, requestID: String, authorization: String) -> HTTP2Request {
        let bundleID = push.topic.hasSuffix(liveActivitySuffix) ? String(push.topic.dropLast(liveActivitySuffix.count)) : push.topic
        let headers = [
            HTTP2Header("apns-request-id", requestID, neverIndexed: true),
            HTTP2Header("authorization", authorization),
            HTTP2Header("apns-channel-id", push.token),
            HTTP2Header("apns-push-type", push.kind.rawValue),
            HTTP2Header("apns-priority", String(push.priority)),
            HTTP2Header("apns-expiration", String(max(0, push.expiration.wholeSeconds))),
        ]
        return HTTP2Request(path: "/4/broadcasts/apps/" + bundleID, headers: headers, body: push.payload)
    }

    private static let liveActivitySuffix = ".push-type.liveactivity"

    /// Apple's reason from an error body ({"reason": "…"}), or the status as text.
    static func reason(in body: [UInt8], status: Int) -> APNsReason {
        if let json = try? JSONParser.parse(body), let reason = json["reason"]?.stringValue {
            return APNsReason(reason)
        }
        return .other("HTTP \(status)")
    }
}
