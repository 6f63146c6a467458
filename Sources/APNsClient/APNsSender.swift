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
        let apnsID = push.apnsID ?? Push.randomID()
        var attempts = 0
        var renewedForExpiry = false
        var lastProblem = GiveUpCause.connection("no attempt made")
        while attempts < retry.maximumAttempts {
            attempts += 1
            guard let authorization = tokens.withLock({ $0.authorization(at: clock.now()) }) else {
                return .gaveUp(cause: .signing, attempts: attempts)
            }
            let response: HTTP2Response
            do {
                response = try await client.send(Self.request(for: push, apnsID: apnsID, authorization: authorization))
            } catch let error as HTTP2TransportError {
                if error.isShutdown { return .gaveUp(cause: .shutDown, attempts: attempts) }
                lastProblem = .connection(error.message)
                await backOff(after: attempts)
                continue
            } catch {
                lastProblem = .connection("\(error)")
                await backOff(after: attempts)
                continue
            }
            if response.status == 200 { return .delivered(apnsID: response.headers["apns-id"] ?? apnsID) }
            let reason = Self.reason(in: response)
            switch response.status {
            case 410:
                onTokenRejected(push, .remove, reason)
                return .rejected(status: 410, reason: reason, tokenAction: .remove)
            case 400 where reason.disablesToken:
                onTokenRejected(push, .disable, reason)
                return .rejected(status: 400, reason: reason, tokenAction: .disable)
            case 403 where reason == .expiredProviderToken:
                if !renewedForExpiry, tokens.withLock({ $0.renewAfterExpiry(at: clock.now()) }) != nil {
                    renewedForExpiry = true
                    attempts -= 1  // the retry with a fresh token is not a failure of the push
                    continue
                }
                return .rejected(status: 403, reason: reason, tokenAction: nil)
            case 429, 500, 503:
                lastProblem = .busy(status: response.status, reason: reason)
                await backOff(after: attempts)
            default:
                return .rejected(status: response.status, reason: reason, tokenAction: nil)
            }
        }
        return .gaveUp(cause: lastProblem, attempts: attempts)
    }

    private func backOff(after attempt: Int) async {
        guard attempt < retry.maximumAttempts else { return }
        await sleep(retry.delay(afterAttempt: attempt, random: Double.random(in: 0...1)))
    }

    /// The HTTP/2 request for a push: path, APNs headers, payload (public
    /// for the benchmark that counts a push's instructions from HA frame to
    /// request, Benchmarks/Sources/PathInstructions).
    /// `authorization`: `bearer <provider token>`.
    public static func request(for push: Push, apnsID: String, authorization: String) -> HTTP2Request {
        var headers: [(String, String)] = [
            ("authorization", authorization),
            ("apns-push-type", push.kind.rawValue),
            ("apns-topic", push.topic),
            ("apns-priority", String(push.priority)),
            ("apns-expiration", String(max(0, push.expiration.wholeSeconds))),
            ("apns-id", apnsID),
        ]
        if let collapseID = push.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return HTTP2Request(path: "/3/device/" + push.token, headers: headers, body: push.payload)
    }

    /// Apple's reason from an error body ({"reason": "…"}), or the status as text.
    static func reason(in response: HTTP2Response) -> APNsReason {
        if let json = try? JSONParser.parse(response.body), let reason = json["reason"]?.stringValue {
            return APNsReason(reason)
        }
        return .other("HTTP \(response.status)")
    }
}
