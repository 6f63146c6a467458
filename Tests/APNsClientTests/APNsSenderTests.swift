import APNsClient
import Foundation
import PrintBridgeCore
import Testing

/// The sender against a real HTTP/2 TLS server that checks requests as Apple does.
@Suite(.serialized) struct APNsSenderTests {
    let server: MockAPNsServer
    let sleeps = SleepRecorder()
    let rejections = RejectionRecorder()
    let sender: APNsSender

    init() throws {
        server = try MockAPNsServer()
        sender = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath), sleep: sleeps.sleep,
            onTokenRejected: rejections.callback)
    }

    @Test func anAlertAndALiveActivityPushAreAccepted() async throws {
        let alert = await sender.send(alertPush(to: token("ab", 1)))
        let activity = await sender.send(liveActivityPush(to: token("cd", 1)))
        guard case .delivered(let id) = alert else { Issue.record("alert: \(alert)"); return }
        #expect(id.count == 36 && id == id.lowercased(), "apns-id \(id)")
        #expect(activity.isDelivered, "\(activity)")
        #expect(try server.stat("requests") == 2)
        #expect(sleeps.recorded.isEmpty)
    }

    @Test func requestsCarryTheAPNsHeadersAndNothingElse() async throws {
        #expect(await sender.send(alertPush(to: token("ab", 4))).isDelivered)
        #expect(await sender.send(liveActivityPush(to: token("cd", 4))).isDelivered)
        let names = try server.stats()["header_names"] as? [String] ?? []
        // Nothing more: no "accept: */*", no form content-type on a JSON body.
        #expect(names == [":authority", ":method", ":path", ":scheme", "apns-collapse-id", "apns-expiration",
                          "apns-id", "apns-priority", "apns-push-type", "apns-topic", "authorization",
                          "content-length"])
    }

    @Test func theServerRejectsWhatAppleWould() async throws {
        let wrongTopic = await sender.send(alertPush(to: token("ab", 2), bundle: "com.example.Other"))
        #expect(wrongTopic == .rejected(status: 400, reason: "BadTopic", tokenAction: nil))
        var tooBig = alertPush(to: token("ab", 3))
        tooBig.payload = Array(#"{"aps":{"alert":"\#(String(repeating: "x", count: 5000))"}}"#.utf8)
        #expect(await sender.send(tooBig) == .rejected(status: 413, reason: "PayloadTooLarge", tokenAction: nil))
        #expect(sleeps.recorded.isEmpty, "4xx are not retried")
    }

    @Test func unregisteredTokensAreRemoved() async {
        let push = alertPush(to: token("feed410f"))
        #expect(await sender.send(push) == .rejected(status: 410, reason: "Unregistered", tokenAction: .remove))
        #expect(rejections.recorded.map(\.0) == [push.token])
        #expect(rejections.recorded.first?.1 == .remove)
    }

    @Test func badDeviceTokensAreDisabledWithAdvice() async {
        #expect(await sender.send(alertPush(to: token("feed400f"))) == .rejected(status: 400, reason: "BadDeviceToken", tokenAction: .disable))
        #expect(await sender.send(alertPush(to: token("feed4001f"))) == .rejected(status: 400, reason: "DeviceTokenNotForTopic", tokenAction: .disable))
        #expect(rejections.recorded.map(\.1) == [.disable, .disable])
        #expect(APNsReason.badDeviceToken.advice?.contains("APNS_PRODUCTION") == true)
    }

    @Test func throttlingAndServerErrorsAreRetriedWithGrowingWaits() async {
        #expect(await sender.send(alertPush(to: token("feed4292"))).isDelivered, "429 twice, then 200")
        #expect(await sender.send(alertPush(to: token("feed5001"))).isDelivered)
        #expect(await sender.send(alertPush(to: token("feed5031"))).isDelivered)
        let waits = sleeps.recorded
        #expect(waits.count == 4)
        #expect(waits[0] >= 0.25 && waits[0] <= 0.5)
        #expect(waits[1] >= 0.5 && waits[1] <= 1.0, "doubled")
    }

    @Test func retriesAreBounded() async {
        let outcome = await sender.send(alertPush(to: token("feed500f")))
        #expect(outcome == .gaveUp(cause: .busy(status: 500, reason: .internalServerError), attempts: 5))
        #expect(sleeps.recorded.count == 4, "no wait after the last attempt")
    }

    @Test func otherClientErrorsAreNotRetried() async throws {
        #expect(await sender.send(alertPush(to: token("feed413f"))) == .rejected(status: 413, reason: "PayloadTooLarge", tokenAction: nil))
        #expect(sleeps.recorded.isEmpty)
        #expect(rejections.recorded.isEmpty)
    }

    /// A batch (`send(_:to:)`): every push ends once, with its tag, as
    /// `send(_:)` would have ended it: delivered, rejected with the token's
    /// fate, retried with waits after 429/500, given up when retries run out.
    // Waits for every answer; the deadline is the limit (the client's own timeouts end every request first).
    @Test(.timeLimit(.minutes(1))) func aBatchEndsEveryPushOnceAsOneByOneWould() async throws {
        let tokens = [token("ab", 21), token("feed410f", 22), token("feed4292", 23), token("feed400f", 24),
                      token("feed500f", 25), token("cd", 26)]
        let pushes = tokens.enumerated().map { TaggedPush(alertPush(to: $1), tag: 100 + $0) }
        let outcomes = await outcomesOfOneBatch(pushes, from: sender)
        #expect(outcomes[100]?.isDelivered == true)
        #expect(outcomes[101] == .rejected(status: 410, reason: "Unregistered", tokenAction: .remove))
        #expect(outcomes[102]?.isDelivered == true, "429 twice, then 200")
        #expect(outcomes[103] == .rejected(status: 400, reason: "BadDeviceToken", tokenAction: .disable))
        #expect(outcomes[104] == .gaveUp(cause: .busy(status: 500, reason: .internalServerError), attempts: 5))
        #expect(outcomes[105]?.isDelivered == true)
        #expect(Set(rejections.recorded.map(\.0)) == [tokens[1], tokens[3]])
        #expect(sleeps.recorded.count == 2 + 4, "two waits for the 429s, four for the 500s")
        // Delivered ids are apns-ids (the server's echo of the request's).
        if case .delivered(let id) = outcomes[100] { #expect(id.count == 36) }
        #expect(try server.stat("requests") == 1 + 1 + 3 + 1 + 5 + 1)
    }

    /// The same push sent again after a 500 keeps its apns-id: APNs (and the
    /// phone) see one notification, not two.
    // Waits for every answer; the deadline is the limit (the client's own timeouts end every request first).
    @Test(.timeLimit(.minutes(1))) func aRetriedPushInABatchKeepsItsID() async throws {
        var push = alertPush(to: token("feed5001", 27))
        push.apnsID = "0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980"
        let answers = PushAnswers()
        sender.send([TaggedPush(push, tag: 7)], to: answers)
        let answered = await answers.next()
        #expect(answered.map(\.tag) == [7])
        #expect(answered.first?.outcome == .delivered(apnsID: "0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980"))
        #expect(sleeps.recorded.count == 1)
    }

    // Waits for every answer; the deadline is the limit (the client's own timeouts end every request first).
    @Test(.timeLimit(.minutes(1))) func aBatchAfterShutdownGivesUpAtOnce() async throws {
        sender.shutdown(grace: 1)
        let answers = PushAnswers()
        sender.send((0..<3).map { TaggedPush(alertPush(to: token("ab", 30 + $0)), tag: $0) }, to: answers)
        var outcomes: [Int: PushOutcome] = [:]
        while outcomes.count < 3 { for (tag, outcome) in await answers.next() { outcomes[tag] = outcome } }
        #expect(outcomes.values.allSatisfy { $0 == .gaveUp(cause: .shutDown, attempts: 1) })
        #expect(try server.stat("requests") == 0)
    }

    @Test func anExpiredProviderTokenIsRenewedOnceAndRetried() async throws {
        // The first provider token is fresh; renewing it at once would be refused by
        // Apple, so with the default policy the push is rejected, not looped.
        #expect(await sender.send(alertPush(to: token("feed4031"))) == .rejected(status: 403, reason: "ExpiredProviderToken", tokenAction: nil))
        // A policy that allows renewing now: new token, one more try, delivered.
        let renewing = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath),
            tokenPolicy: ProviderTokenPolicy(renewAfter: 3000, minimumAge: 0), sleep: sleeps.sleep)
        #expect(await renewing.send(alertPush(to: token("feed4031", 7))).isDelivered)
        #expect(renewing.providerTokenRenewals == 2)
        #expect(await renewing.send(alertPush(to: token("feed403f", 8))) == .rejected(status: 403, reason: "ExpiredProviderToken", tokenAction: nil), "renewed once, not forever")
    }
}

@Suite(.serialized) struct APNsConnectionTests {
    @Test func manyPushesShareOneMultiplexedConnection() async throws {
        let server = try MockAPNsServer()
        // The Python mock on a loaded CI machine can go quiet for seconds: not
        // a dead connection, and this test is about sharing one.
        let sender = try senderWithClient(of: server) { $0.stallTimeout = 120 }
        let outcomes = await withTaskGroup(of: PushOutcome.self) { group in
            for index in 0..<200 {
                // Answers take 0.2 s, so streams stay open while others are sent.
                group.addTask { await sender.send(alertPush(to: token("de1a02", index))) }
            }
            return await group.reduce(into: [PushOutcome]()) { $0.append($1) }
        }
        let delivered = outcomes.filter(\.isDelivered).count
        #expect(delivered == 200)
        #expect(try server.stat("connections") == 1)
        #expect(try server.stat("max_concurrent_streams") > 1, "streams were in flight together")
        #expect((try server.stats()["jwts"] as? [String])?.count == 1, "one provider token for all")
    }

    /// Through eight streams at a time, 300 pushes: every request reaches
    /// the server with its own path and apns-id, and each answer comes back
    /// to its own push.
    @Test(.timeLimit(.minutes(1))) func reusedStreamSlotsKeepEachRequestsOwnFields() async throws {
        let server = try MockAPNsServer()
        let sender = try senderWithClient(of: server) { $0.maximumStreams = 8 }
        let tokens = (0..<300).map { token("5107", $0) }
        let pushes = tokens.enumerated().map { index, token in
            var push = alertPush(to: token)
            push.apnsID = Push.derivedID("stream-test|\(index)")
            // Every tenth push with another priority.
            if index % 10 == 0 { push.priority = 5 }
            return TaggedPush(push, tag: index)
        }
        let outcomes = await outcomesOfOneBatch(pushes, from: sender)
        for (index, push) in pushes.enumerated() {
            #expect(outcomes[index] == .delivered(apnsID: push.push.apnsID!), "push \(index) came back with its own id")
        }
        let seen = try server.stats()["tokens_seen"] as? [String: Int] ?? [:]
        #expect(Set(seen.keys) == Set(tokens) && seen.values.allSatisfy { $0 == 1 }, "each path once, as written")
        #expect(try server.stat("max_concurrent_streams") <= 8)
        sender.shutdown()
    }

    /// A request with no answer within the request timeout is reset
    /// (RST_STREAM) and fails as a timeout, and the connection goes on
    /// carrying the next pushes, whose answers are theirs even when the
    /// late answer's stream id comes back.
    @Test(.timeLimit(.minutes(1))) func aRequestPastItsTimeoutIsResetAndTheConnectionGoesOn() async throws {
        let server = try MockAPNsServer()
        let sender = try senderWithClient(of: server, retry: RetryPolicy(maximumAttempts: 1)) { options in
            options.requestTimeout = 1
            options.stallTimeout = 120
            options.maximumStreams = 2
        }
        // The mock answers tokens starting "de1a14" after 2 s.
        let slow = TaggedPush(alertPush(to: token("de1a14", 1)), tag: 0)
        let quick = (1...20).map { TaggedPush(alertPush(to: token("ab", 40 + $0)), tag: $0) }
        let outcomes = await outcomesOfOneBatch([slow] + quick, from: sender)
        guard case .gaveUp(.connection(let message), 1) = outcomes[0] else {
            Issue.record("the slow push: \(String(describing: outcomes[0]))")
            return
        }
        #expect(message.contains("no answer") && message.contains("within 1 s"))
        #expect((1...20).allSatisfy { outcomes[$0]?.isDelivered == true }, "the others went through the other stream")
        // After the slow answer's time has passed, the connection still serves.
        try await Task.sleep(for: .seconds(1.5))
        let after = await outcomesOfOneBatch((0..<4).map { TaggedPush(alertPush(to: token("cd", 70 + $0)), tag: $0) }, from: sender)
        #expect(after.values.allSatisfy(\.isDelivered) && after.count == 4)
        #expect(try server.stat("connections") == 1)
        sender.shutdown()
    }

    /// An idle APNs connection is probed by the kernel's TCP keepalive after
    /// 30 s (Linux's default is 2 hours): /proc/net/tcp shows our end of the
    /// connection with its keepalive timer (timer 2) due within 30 s.
    @Test func anIdleConnectionIsProbedByKeepaliveWithinThirtySeconds() async throws {
        let server = try MockAPNsServer()
        let sender = try APNsSender(configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath))
        #expect(await sender.send(alertPush(to: token("ab"))).isDelivered)
        let port = String(format: "%04X", server.port)
        let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
        /// Our end of each connection to the mock: its timer (2: keepalive) and when it is due.
        func connectionTimers() -> [(kind: Int, due: Int)] {
            var timers: [(kind: Int, due: Int)] = []
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                // Read to the end: a /proc file says it is empty, and a busy
                // machine's table is longer than one page.
                let data = FileHandle(forReadingAtPath: table)?.readDataToEndOfFile() ?? Data()
                let text = String(decoding: data, as: UTF8.self)
                for line in text.split(separator: "\n").dropFirst() {
                    let fields = line.split(separator: " ")
                    // local, remote, state, queues, "timer:due"
                    guard fields.count > 5, fields[2].hasSuffix(":" + port), fields[3] == "01" else { continue }
                    let timer = fields[5].split(separator: ":")
                    timers.append((Int(timer[0], radix: 16) ?? -1, Int(timer[1], radix: 16) ?? -1))
                }
            }
            return timers
        }
        // Right after an exchange the kernel may still run the retransmit
        // timer (1) for our last segment until its ACK comes (a delayed ACK
        // on a loaded machine); the connection is idle, and on its keepalive
        // timer, once that is in.
        var timers = connectionTimers()
        #expect(waitUntil(upTo: 30) {
            timers = connectionTimers()
            return timers.count != 1 || timers.first?.kind == 2
        })
        #expect(timers.count == 1, "one connection to the mock: \(timers)")
        #expect(timers.first?.kind == 2, "a keepalive timer runs: \(timers)")
        #expect((timers.first?.due ?? .max) <= 30 * ticksPerSecond, "due within 30 s: \(timers)")
        sender.shutdown(grace: 0)
    }

    @Test func aDroppedConnectionIsReopenedAndInFlightPushesRetried() async throws {
        let server = try MockAPNsServer()
        let sleeps = SleepRecorder()
        let sender = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath), sleep: sleeps.sleep)
        #expect(await sender.send(alertPush(to: token("ab", 1))).isDelivered)
        // Slow pushes in flight while another push makes the server drop the
        // connection: the server has both (it counts a request before it
        // answers, and these answer after 0.5 s) when the dropping one goes.
        async let slow1 = sender.send(alertPush(to: token("de1a05", 1)))
        async let slow2 = sender.send(alertPush(to: token("de1a05", 2)))
        #expect(await waitUntil(upTo: 30, asking: {
            let seen = (try? server.stats())?["tokens_seen"] as? [String: Int] ?? [:]
            return seen[token("de1a05", 1)] == 1 && seen[token("de1a05", 2)] == 1
        }))
        let dropped = await sender.send(alertPush(to: token("dead1")))
        let (first, second) = await (slow1, slow2)
        #expect(dropped.isDelivered, "\(dropped)")
        #expect(first.isDelivered && second.isDelivered, "\(first) \(second)")
        #expect(try server.stat("drops") == 1)
        #expect(try server.stat("connections") == 2)
        #expect(await sender.send(alertPush(to: token("ab", 2))).isDelivered)
    }

    @Test func aGoawayIsFollowedByATransparentReconnect() async throws {
        let server = try MockAPNsServer()
        let sender = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath), sleep: SleepRecorder().sleep)
        #expect(await sender.send(alertPush(to: token("ab", 1))).isDelivered)
        #expect(await sender.send(alertPush(to: token("90a41"))).isDelivered)
        #expect(await sender.send(alertPush(to: token("ab", 2))).isDelivered)
        #expect(try server.stat("goaways") == 1)
        #expect(try server.stat("connections") == 2)
    }

    @Test func shutdownFailsNewPushesCleanly() async throws {
        let server = try MockAPNsServer()
        let sender = try APNsSender(configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath))
        #expect(await sender.send(alertPush(to: token("ab", 1))).isDelivered)
        sender.shutdown(grace: 1)
        #expect(await sender.send(alertPush(to: token("ab", 2))) == .gaveUp(cause: .shutDown, attempts: 1))
    }
}

/// The HTTP/2 client on its own: where it connects and how it fails.
@Suite struct HTTP2ClientTests {
    @Test func originsAreHTTPSHostsAndPortsOnly() {
        let apple = HTTPOrigin("https://api.push.apple.com")
        #expect(apple?.host == "api.push.apple.com" && apple?.port == 443 && apple?.authority == "api.push.apple.com")
        let local = HTTPOrigin("https://127.0.0.1:8443/")
        #expect(local?.port == 8443 && local?.authority == "127.0.0.1:8443")
        let six = HTTPOrigin("https://[::1]:9443")
        #expect(six?.host == "::1" && six?.authority == "[::1]:9443")
        for bad in ["http://a", "https://", "https://a/3/device", "https://a:0", "https://a:70000", "https://u@a", "https://[::1"] {
            #expect(HTTPOrigin(bad) == nil, "\(bad)")
        }
    }

    @Test func aServerOutsideTheTrustStoreFailsItsTLSHandshake() async throws {
        let server = try MockAPNsServer()
        let origin = try #require(server.configuration.origin)
        // The system's trust store, not the mock's own CA.
        let error = try await Self.failure(sendingTo: origin)
        #expect(error?.kind == .tls)
        #expect(error?.message.contains("certificate") == true, "\(String(describing: error))")
        #expect(try server.stat("requests") == 0)
    }

    @Test func nothingListeningIsAConnectError() async throws {
        let origin = try #require(HTTPOrigin("https://127.0.0.1:\(HTTP2ClientLookupTests.closedPort())"))
        let error = try await Self.failure(sendingTo: origin)
        #expect(error?.kind == .connect)
        #expect(error?.message.contains("refused") == true, "\(String(describing: error))")
    }

    /// Sends one request with a fresh client (the system's trust store);
    /// the transport error it fails with, or nil (recorded) if it was answered.
    static func failure(sendingTo origin: HTTPOrigin) async throws -> HTTP2TransportError? {
        let client = try HTTP2Client(origin: origin)
        defer { client.shutdown(grace: 0) }
        do {
            let answer = try await client.send(HTTP2Request(path: "/3/device/ab", headers: [], body: []))
            Issue.record("answered: \(answer.status)")
            return nil
        } catch let error as HTTP2TransportError {
            return error
        }
    }
}

@Suite struct ProviderTokenTests {
    @Test func reusedFor50MinutesNeverRenewedWithin20() async throws {
        let server = try MockAPNsServer(ignoreIAT: true)
        let key = try APNsSigningKey(path: server.keyPath)
        var cache = ProviderTokenCache(teamID: MockAPNsServer.teamID, keyID: MockAPNsServer.keyID, key: key)
        let start = EpochTime(seconds: 1_795_165_200)
        let issued = cache.token(at: start)
        let first = try #require(issued)
        let reused = cache.token(at: start + 49 * 60)
        #expect(reused == first)
        let early = cache.renewAfterExpiry(at: start + 10 * 60)
        #expect(early == nil, "too soon for Apple")
        let second = cache.token(at: start + 50 * 60)
        #expect(second != nil && second != first)
        #expect(cache.renewals == 2)
        let later = cache.renewAfterExpiry(at: start + 71 * 60)
        #expect(later != nil, "21 minutes later renewal is allowed")
    }

    @Test func theAuthorizationHeaderFollowsTheToken() async throws {
        let server = try MockAPNsServer(ignoreIAT: true)
        let key = try APNsSigningKey(path: server.keyPath)
        var cache = ProviderTokenCache(teamID: MockAPNsServer.teamID, keyID: MockAPNsServer.keyID, key: key)
        let start = EpochTime(seconds: 1_795_165_200)
        let firstAuthorization = cache.authorization(at: start)
        let first = try #require(firstAuthorization)
        let firstToken = cache.token(at: start)
        let token = try #require(firstToken)
        #expect(first == "bearer " + token)
        #expect(cache.authorization(at: start + 49 * 60) == first)
        // Renewed: the header carries the new token, not the one it was made for first.
        let renewedAuthorization = cache.authorization(at: start + 50 * 60)
        let renewed = try #require(renewedAuthorization)
        let renewedToken = cache.token(at: start + 50 * 60)
        let newToken = try #require(renewedToken)
        #expect(newToken != token && renewed == "bearer " + newToken)
        #expect(cache.renewals == 2)
    }

    @Test func theTokenHasTheDocumentedShape() throws {
        let server = try MockAPNsServer(ignoreIAT: true)
        var cache = ProviderTokenCache(teamID: "TEAMID1234", keyID: "KEYID56789", key: try APNsSigningKey(path: server.keyPath))
        let issued = cache.token(at: EpochTime(seconds: 1_795_165_200.7))
        let jwt = try #require(issued)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        func decode(_ part: String) -> String {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            return String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
        }
        #expect(decode(parts[0]) == #"{"alg":"ES256","kid":"KEYID56789"}"#)
        #expect(decode(parts[1]) == #"{"iss":"TEAMID1234","iat":1795165200}"#, "iat is a whole number")
        #expect(!parts[2].contains("=") && !parts[2].contains("+") && !parts[2].contains("/"))
        #expect(parts[2].count == 86, "64 bytes, unpadded")
        #expect(Data(base64Encoded: parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "==")?.count == 64)
    }

    @Test func theSenderRenewsOnItsClockAndTheServerSeesIt() async throws {
        let server = try MockAPNsServer(ignoreIAT: true)
        let clock = ManualClock(EpochTime(seconds: 1_795_165_200))
        let sender = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath), clock: clock)
        #expect(await sender.send(alertPush(to: token("ab", 1))).isDelivered)
        clock.advance(by: 30 * 60)
        #expect(await sender.send(alertPush(to: token("ab", 2))).isDelivered)
        #expect((try server.stats()["jwts"] as? [String])?.count == 1)
        clock.advance(by: 21 * 60)
        #expect(await sender.send(alertPush(to: token("ab", 3))).isDelivered)
        #expect((try server.stats()["jwts"] as? [String])?.count == 2)
        #expect(sender.providerTokenRenewals == 2)
    }
}

@Suite struct APNsKeyAndConfigurationTests {
    @Test func badKeysGiveOneClearErrorWithoutTheirContents() throws {
        let server = try MockAPNsServer(ignoreIAT: true)
        func message(_ path: String) -> String {
            do {
                _ = try APNsSigningKey(path: path)
                return "loaded"
            } catch { return error.description }
        }
        #expect(message(server.workdir + "/missing.p8").contains("cannot be read: No such file or directory"))
        #expect(message(server.workdir).contains("cannot be read: it is a directory"))
        #expect(message(server.workdir + "/bad-rsa.p8").contains("holds a RSA-2048 key; APNs token authentication needs an ES256 (P-256) key"))
        #expect(message(server.workdir + "/bad-p384.p8").contains("holds a EC secp384r1 key"))
        #expect(message(server.workdir + "/bad-garbage.p8").contains("is not a PEM-encoded PKCS#8 private key"))
        #expect(message(server.workdir + "/ca.pem").contains("is not a PEM-encoded PKCS#8 private key"))
        let keyText = try String(contentsOfFile: server.keyPath, encoding: .utf8)
        let body = keyText.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        for path in ["/bad-rsa.p8", "/bad-garbage.p8", "/AuthKey_TEST.p8x"] {
            #expect(!message(server.workdir + path).contains(body))
            #expect(!message(server.workdir + path).contains("TUlTVElLRVNFQ1JFVA"))
        }
    }

    @Test func theSeedsVariablesAreRead() throws {
        let configuration = try APNsConfiguration.fromEnvironment([
            "APNS_TEAM_ID": "TEAMID1234", "APNS_KEY_ID": "KEYID56789", "APNS_KEY_PATH": "/keys/AuthKey.p8",
            "APNS_BUNDLE_ID": "com.samduncan.PrinterMonitor", "APNS_PRODUCTION": "true",
        ])
        #expect(configuration.environment == .production)
        #expect(configuration.endpoint == "https://api.push.apple.com")
        let sandbox = try APNsConfiguration.fromEnvironment([
            "APNS_TEAM_ID": "TEAMID1234", "APNS_KEY_ID": "KEYID56789", "APNS_KEY_PATH": "/k.p8",
            "APNS_BUNDLE_ID": "com.x.y", "APNS_BASE_URL": "https://127.0.0.1:8443/", "APNS_CA_FILE": "/ca.pem",
        ])
        #expect(sandbox.environment == .sandbox)
        #expect(sandbox.endpoint == "https://127.0.0.1:8443")
        #expect(sandbox.caFile == "/ca.pem")
    }

    @Test func everyProblemIsNamedInOneError() {
        do {
            _ = try APNsConfiguration.fromEnvironment([
                "APNS_TEAM_ID": "team", "APNS_KEY_PATH": "/k.p8", "APNS_BUNDLE_ID": "nodots",
                "APNS_PRODUCTION": "maybe", "APNS_BASE_URL": "http://insecure",
            ])
            Issue.record("accepted")
        } catch {
            let text = error.description
            #expect(text.contains("APNS_KEY_ID not set"))
            #expect(text.contains("APNS_PRODUCTION must be true or false"))
            #expect(text.contains("APNS_TEAM_ID must be the 10-character Team ID"))
            #expect(text.contains("APNS_BUNDLE_ID must be a bundle id"))
            #expect(text.contains("APNS_BASE_URL must be https://host or https://host:port"))
        }
    }
}

/// Sends `pushes` as one batch and waits for every outcome, by tag; an
/// outcome that comes twice is an issue.
func outcomesOfOneBatch(_ pushes: [TaggedPush], from sender: APNsSender) async -> [Int: PushOutcome] {
    let answers = PushAnswers()
    sender.send(pushes, to: answers)
    var outcomes: [Int: PushOutcome] = [:]
    while outcomes.count < pushes.count {
        for (tag, outcome) in await answers.next() {
            #expect(outcomes[tag] == nil, "tag \(tag) answered twice")
            outcomes[tag] = outcome
        }
    }
    return outcomes
}

/// A sender for `server` whose HTTP/2 client has the options `configure` sets.
func senderWithClient(
    of server: MockAPNsServer, retry: RetryPolicy = .init(), _ configure: (inout HTTP2Client.Options) -> Void
) throws -> APNsSender {
    var options = HTTP2Client.Options(caFile: server.configuration.caFile)
    configure(&options)
    return try APNsSender(
        configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath),
        client: try HTTP2Client(origin: try #require(server.configuration.origin), options: options), retry: retry)
}
