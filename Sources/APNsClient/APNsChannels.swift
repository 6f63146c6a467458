import PrintBridgeCore

/// APNs' channel management API for Live Activity broadcast channels
/// (iOS 18), with the sender's provider token: the same key, team and
/// bundle id (Apple, "Sending channel management requests to APNs"; the
/// requests as parse-community/node-apn lib/client.js and
/// alexandercerutti/hapns src/channels/broadcast.ts make them):
///
/// - create: `POST /1/apps/{bundle}/channels` with
///   `{"message-storage-policy": 1, "push-type": "LiveActivity"}` →
///   201 and the new channel's id in `apns-channel-id`;
/// - delete: `DELETE /1/apps/{bundle}/channels` with `apns-channel-id` → 204;
/// - list: `GET /1/apps/{bundle}/all-channels` → 200 `{"channels": [...]}`.
///
/// Every request carries a fresh `apns-request-id` (a UUID), which APNs
/// answers with, so a log line names the request Apple saw.
///
/// The host is the management API's own (`APNsConfiguration.channelEndpoint`:
/// port 2196 in production, 2195 in the sandbox), on a connection of its
/// own, opened at the first call; broadcasts go over the sender's.
///
/// Message storage policy 1, "Most Recent Message": a phone out of reach
/// when an update (or the end) went gets the latest one when it is back,
/// as an activity token's push waits for it (`apns-expiration`). Policy 0
/// (no storage) is for a stream of sports scores where a missed one is
/// soon replaced; a print's end is not replaced by anything.
///
/// Calls are not retried here: an expired provider token is renewed once,
/// anything else is the caller's to judge (`ChannelFailure.isLasting`) and
/// to try again after a back-off (the agent's `ChannelKeeper`).
public final class APNsChannels: ChannelManager {
    /// `message-storage-policy` of the channels made (see the type's comment).
    public static let messageStoragePolicy = 1

    private let sender: APNsSender
    private let client: HTTP2Client
    private let bundleID: String

    /// Throws when the management host is not a usable origin or the client cannot start.
    public init(sender: APNsSender, options: HTTP2Client.Options = .init()) throws(HTTP2TransportError) {
        let configuration = sender.configuration
        guard let origin = configuration.channelOrigin else {
            throw HTTP2TransportError(.setUp, "APNs channel endpoint \(configuration.channelEndpoint) is not https://host[:port]")
        }
        var options = options
        options.caFile = options.caFile ?? configuration.caFile
        options.threadName = "pb-apns-chan"
        self.sender = sender
        client = try HTTP2Client(origin: origin, options: options)
        bundleID = configuration.bundleID
    }

    /// Stops the connection (requests in flight get `grace` seconds).
    public func shutdown(grace: Double = 2) async {
        await client.shutdown(grace: grace)
    }

    public func createChannel() async -> Result<String, ChannelFailure> {
        let body = Array(#"{"message-storage-policy":\#(Self.messageStoragePolicy),"push-type":"LiveActivity"}"#.utf8)
        return await call("POST", "/1/apps/\(bundleID)/channels", body: body, expecting: 201).flatMap { answer in
            guard let id = answer.headers["apns-channel-id"], !id.isEmpty else {
                return .failure(.rejected(status: answer.status, reason: .other("no apns-channel-id in the answer")))
            }
            return .success(id)
        }
    }

    public func deleteChannel(_ id: String) async -> Result<Void, ChannelFailure> {
        switch await call("DELETE", "/1/apps/\(bundleID)/channels", channel: id, expecting: 204) {
        case .success: return .success(())
        case .failure(let failure) where failure.isUnknownChannel: return .success(())
        case .failure(let failure): return .failure(failure)
        }
    }

    public func listChannels() async -> Result<[String], ChannelFailure> {
        await call("GET", "/1/apps/\(bundleID)/all-channels", expecting: 200).flatMap { answer in
            guard let json = try? JSONParser.parse(answer.body), let list = json["channels"]?.arrayValue else {
                return .failure(.rejected(status: answer.status, reason: .badRequestPayload))
            }
            return .success(list.compactMap(\.stringValue))
        }
    }

    /// One request, again once with a fresh provider token after a 403
    /// ExpiredProviderToken.
    private func call(
        _ method: String, _ path: String, channel: String? = nil, body: [UInt8] = [], expecting status: Int
    ) async -> Result<HTTP2Response, ChannelFailure> {
        var renewed = false
        while true {
            guard let authorization = (renewed ? sender.renewedAuthorization() : nil) ?? sender.authorization() else {
                return .failure(.unanswered("could not sign the provider token with the APNs key"))
            }
            var headers = [
                HTTP2Header("apns-request-id", Push.randomID(), neverIndexed: true),
                HTTP2Header("authorization", authorization),
            ]
            if let channel { headers.append(HTTP2Header("apns-channel-id", channel)) }
            if !body.isEmpty { headers.append(HTTP2Header("content-type", "application/json")) }
            let answer: HTTP2Response
            do {
                answer = try await client.send(HTTP2Request(method: method, path: path, headers: headers, body: body))
            } catch {
                return .failure(error.isShutdown ? .shutDown : .unanswered(error.description))
            }
            if answer.status == status { return .success(answer) }
            let reason = APNsSender.reason(in: answer.body, status: answer.status)
            if answer.status == 403, reason == .expiredProviderToken, !renewed {
                renewed = true
                continue
            }
            return .failure(.rejected(status: answer.status, reason: reason))
        }
    }
}
