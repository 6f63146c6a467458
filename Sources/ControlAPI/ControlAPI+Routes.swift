extension ControlAPI {
    /// A route's handler: its answer, or nil when it answers later through the reply.
    typealias Handler = @Sendable (ControlAPI, RouteCall, HTTPReply) throws -> HTTPResponse?

    /// The API, one row a route: method, path (`:name` a parameter), who
    /// may call it, handler. docs/openapi.json documents exactly these rows
    /// (RouteTableTests hold it to them, access levels included).
    static let routes: [Route<Handler>] = [
        Route(.get, "/healthz", .public) { api, _ in api.health() },
        Route(.get, "/metrics", .public) { api, _ in api.metricsExposition() },
        Route(.get, "/", .admin, challenge: .basic) { api, _ in api.statusPage() },
        Route(.post, "/pairing-code", .admin, challenge: .basic) { api, call in try api.pairingPage(call.request) },
        Route(.post, "/devices/:deviceId/revoke", .admin, challenge: .basic) { api, call in
            try api.revokeFromPage(call["deviceId"], call.request)
        },
        Route(.post, "/api/pair", .pairingCode) { api, call in try api.pair(call.request) },
        Route(.post, "/api/devices/register", .token) { api, call in try api.register(call.request, caller: call.caller) },
        Route(.post, "/api/devices/activity-token", .token, device: .body("deviceId")) { api, call in
            try api.activityToken(call.request)
        },
        Route(.get, "/api/devices/by-printer/:prefix", .credential) { api, call in try api.byPrinter(call["prefix"], caller: call.caller) },
        // A path's :deviceId is checked against a phone's own device by the table (`Route.device`).
        Route(.patch, "/api/devices/:deviceId/settings", .token) { api, call in try api.settings(call["deviceId"], call.request) },
        Route(.post, "/api/devices/:deviceId/push-to-start-token", .token) { api, call in
            try api.pushToStart(call["deviceId"], call.request)
        },
        Route(.post, "/api/devices/:deviceId/activity-channel", .token) { api, call in
            try api.activityChannel(call["deviceId"], call.request)
        },
        Route(.get, "/api/devices/:deviceId", .credential) { api, call in try api.device(call["deviceId"]) },
        Route(.delete, "/api/devices/:deviceId", .token) { api, call in try api.remove(call["deviceId"]) },
        Route(.post, "/api/devices/:deviceId/test-push", .credential, answersLater: { api, call, reply in
            try api.testPush(call["deviceId"], call.request, reply: reply)
        }),
        Route(.delete, "/api/devices/:deviceId/credential", .credential) { api, call in try api.revoke(call["deviceId"]) },
        Route(.get, "/api/config/apns/status", .token) { api, _ in api.apnsStatus() },
        Route(.post, "/api/config/apns/init", .token) { api, _ in api.apnsInit() },
        Route(.get, "/api/printers", .token) { api, _ in api.printerList() },
        Route(.get, "/api/printers/:prefix/history", .token) { api, call in try api.history(call["prefix"]) },
        Route(.get, "/api/printers/:prefix/channel", .token) { api, call in try api.channel(call["prefix"]) },
        Route(.get, "/api/history", .token) { api, call in try api.historyPage(call.request) },
        Route(.get, "/api/statistics", .token) { api, call in try api.statistics(call.request) },
        Route(.post, "/api/printers/:prefix/actions/:action", .credential, answersLater: { api, call, reply in
            api.action(call["prefix"], call["action"], call.request, reply: reply)
        }),
        Route(.get, "/api/notifications", .credential, device: .query("device")) { api, call in try api.notifications(call.request) },
        Route(.post, "/api/devices/:deviceId/notifications/:notificationId/opened", .credential) { api, call in
            try api.opened(call["deviceId"], call["notificationId"])
        },
        // The signed link is the credential (a phone's notification extension has no token).
        Route(.get, "/api/snapshots/:name", .public) { api, call in try api.snapshot(call["name"], call.request) },
    ]

    static let table = RouteTable(routes)
}

extension Route where Handler == ControlAPI.Handler {
    /// A row whose handler answers at once.
    init(
        _ method: HTTPMethod, _ path: String, _ access: Access, challenge: AuthChallenge = .bearer,
        device: DeviceReference? = nil, _ handler: @escaping @Sendable (ControlAPI, RouteCall) throws -> HTTPResponse
    ) {
        let answersNow: ControlAPI.Handler = { api, call, _ in try handler(api, call) }
        self.init(method, path, access, challenge: challenge, device: device, answersNow)
    }

    /// A row whose handler may answer later, through the reply.
    init(
        _ method: HTTPMethod, _ path: String, _ access: Access, challenge: AuthChallenge = .bearer,
        answersLater handler: @escaping ControlAPI.Handler
    ) {
        self.init(method, path, access, challenge: challenge, handler as ControlAPI.Handler)
    }
}
