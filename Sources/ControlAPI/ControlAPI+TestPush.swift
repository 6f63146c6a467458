import PrintBridgeCore

/// `POST /api/devices/{deviceId}/test-push`: the app's "Send a test
/// notification", as the CLI's `send-test`, for its own phone.
extension ControlAPI {
    /// Test pushes per phone: three at once, then one every 20 minutes.
    /// Enough to try, change a setting on the phone (Focus, the app's
    /// notification permission) and try again; too few for a stuck client
    /// or a leaked credential to turn the agent into a buzzer on the phone
    /// or APNs's noisiest sender.
    public static func testPushLimiter(clock: @escaping @Sendable () -> Double = { MonotonicClock.seconds() }) -> ActionLimiter {
        ActionLimiter(burst: 3, refillSeconds: 1200, clock: clock)
    }

    /// Asks the agent for a test push to `deviceID` and answers (later)
    /// what it queued: 202 with the push, its texts and language. The body
    /// is empty or `{}`. 404 for a phone not registered, 409 for one whose
    /// token APNs refused, 429 over the allowance, 503 without an agent.
    func testPush(_ deviceID: String, _ request: HTTPRequest, reply: HTTPReply) throws -> HTTPResponse? {
        if !request.body.isEmpty, let field = try object(request).keys.sorted().first {
            throw Invalid(details: [field: ["is not a field: the body is empty or {}"]])
        }
        guard let device = try store.device(id: deviceID) else {
            return APIError.response(404, "Device not found")
        }
        if device.isDisabled {
            return APIError.response(
                409, "APNs refused this phone's device token (often the wrong APNs environment); register it again")
        }
        guard let testPushes else {
            return APIError.response(503, "Test pushes are sent by the running agent (printbridge run)")
        }
        if let wait = testPushLimiter.take(deviceID) {
            var response = APIError.response(
                429, "Three test pushes at once, then one every 20 minutes; try again in \(wait) s")
            response.extraHeaders = [("Retry-After", String(wait))]
            return response
        }
        testPushes(deviceID) { outcome in
            switch outcome {
            case .queued(let push, let language):
                reply.send(HTTPResponse(status: 202, body: JSONText.object([
                    ("success", "true"), ("message", JSONText.quoted("Test push queued")),
                    ("push", APIJSON.queuedTestPush(push, language: language)),
                ])))
            case .noPhone:
                reply.send(APIError.response(404, "Device not found"))
            case .stopping:
                reply.send(APIError.response(503, "The agent is shutting down; try again when it is back"))
            }
        }
        return nil
    }
}

extension APIJSON {
    /// A test push as queued: what the phone will show, in which language,
    /// to which token (shortened), and until when APNs tries.
    static func queuedTestPush(_ push: Push, language: String) -> String {
        let shown = SentNotification(sent: push)
        return JSONText.object([
            ("apnsId", push.apnsID.map(JSONText.quoted) ?? "null"),
            ("kind", JSONText.quoted(push.event.rawValue)),
            ("token", JSONText.quoted(push.shortToken)),
            ("title", shown.map { JSONText.quoted($0.title) } ?? "null"),
            ("body", shown.map { JSONText.quoted($0.body) } ?? "null"),
            ("language", JSONText.quoted(language)),
            ("madeAt", JSONText.quoted(ISO8601.format(push.createdAt))),
            ("expiresAt", JSONText.quoted(ISO8601.format(push.expiration))),
        ])
    }
}
