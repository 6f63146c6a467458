import DeviceStore
import PrintBridgeCore
import Synchronization

/// The HTTP API the iOS app calls (the seed's paths and JSON field names),
/// plus push-to-start tokens, the printers' state and a health check.
///
/// The routes are one table (`ControlAPI+Routes.swift`), a row each: method,
/// path, who may call it (`Access`), handler. Every /api route and the
/// status page need the API token (compared in constant time), except from
/// the trusted networks (API_TRUSTED_NETWORKS, for the seed app, which sends
/// no header) or when the token is nil (an explicit opt-out, --no-api-auth).
public struct ControlAPI: Sendable {
    public struct APNsStatus: Sendable {
        public var configured: Bool
        public var bundleID: String
        public var production: Bool
        public init(configured: Bool, bundleID: String, production: Bool) {
            self.configured = configured
            self.bundleID = bundleID
            self.production = production
        }
    }

    let store: DeviceStore
    let apiToken: String?
    let apns: APNsStatus
    /// The printers' current state (from the daemon's cache), by prefix.
    let printers: @Sendable () -> [PrinterSnapshot]
    /// Called after any change to devices or tokens, so the daemon reloads them.
    let devicesChanged: @Sendable () -> Void
    /// The app opened an alert (its `apns-id`): the running agent tells it no more.
    let alertOpened: @Sendable (String) -> Void
    /// Serves /metrics and a readiness /healthz when given.
    let metrics: AgentMetrics?
    /// Clients on these networks need no API token (API_TRUSTED_NETWORKS).
    let trustedNetworks: TrustedNetworks
    /// Told of every store failure behind a 500 (the request and the error), for the log.
    let storeFailed: @Sendable (String) -> Void
    /// Presses printers' buttons in HA (`action`); nil without a link to HA.
    let pressButton: ButtonPresser?
    /// How many printer actions a caller may ask for, and how fast.
    let actionLimiter: ActionLimiter
    /// Told of every printer action asked for and how it ended, for the log.
    let actionTaken: @Sendable (ActionReport) -> Void
    /// The pictures of the prints, when the agent takes them.
    let snapshots: SnapshotServing?
    /// Home Assistant's ingress proxy (the add-on's Supervisor): the status page behind HA's sign-in.
    let ingressProxy: TrustedNetworks
    /// Failed authentication per source address, and who is held back.
    let authThrottle: AuthThrottle
    /// A source was shut out for the first time in its burst (one log line).
    let authThrottled: @Sendable (String, AuthThrottle.Failure) -> Void
    /// A phone came in the way it did before per-phone credentials: the
    /// shared admin token from another machine, or a trusted network without
    /// a credential (for the once-a-day word on what to change).
    let oldWayIn: @Sendable (_ caller: String, _ peer: String) -> Void
    /// Makes a pairing code with its QR code for the status page (nil: none offered).
    let pairing: PairingOffer?
    /// The status page's forms carry it and their posts must (random, made
    /// at start): another site's page cannot read it.
    let formToken = Base64.urlEncode(PhoneCredentials.random(32))
    /// Queues a test push to a phone in the running agent (nil: none runs).
    let testPushes: TestPushQueue?
    /// How many test pushes a phone may ask for, and how fast.
    let testPushLimiter: ActionLimiter
    /// Wall time for what the answers say and select (statistics' default
    /// range, a picture link's expiry); a hand-moved clock in tests.
    let clock: any EpochClock

    public init(
        store: DeviceStore, apiToken: String?, apns: APNsStatus, printers: @escaping @Sendable () -> [PrinterSnapshot] = { [] },
        devicesChanged: @escaping @Sendable () -> Void = {}, metrics: AgentMetrics? = nil,
        trustedNetworks: TrustedNetworks = TrustedNetworks(), storeFailed: @escaping @Sendable (String) -> Void = { _ in },
        pressButton: ButtonPresser? = nil, actionLimiter: ActionLimiter = ActionLimiter(),
        actionTaken: @escaping @Sendable (ActionReport) -> Void = { _ in }, snapshots: SnapshotServing? = nil,
        ingressProxy: TrustedNetworks = TrustedNetworks(), authThrottle: AuthThrottle = AuthThrottle(),
        authThrottled: @escaping @Sendable (_ source: String, AuthThrottle.Failure) -> Void = { _, _ in },
        oldWayIn: @escaping @Sendable (_ caller: String, _ peer: String) -> Void = { _, _ in },
        pairing: PairingOffer? = nil, clock: any EpochClock = SystemClock(), testPushes: TestPushQueue? = nil,
        testPushLimiter: ActionLimiter = ControlAPI.testPushLimiter(),
        alertOpened: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.alertOpened = alertOpened
        self.testPushes = testPushes
        self.testPushLimiter = testPushLimiter
        self.clock = clock
        self.pairing = pairing
        self.oldWayIn = oldWayIn
        self.ingressProxy = ingressProxy
        self.authThrottle = authThrottle
        self.authThrottled = authThrottled
        self.snapshots = snapshots
        self.pressButton = pressButton
        self.actionLimiter = actionLimiter
        self.actionTaken = actionTaken
        self.storeFailed = storeFailed
        self.metrics = metrics
        self.trustedNetworks = trustedNetworks
        self.store = store
        self.apiToken = apiToken
        self.apns = apns
        self.printers = printers
        self.devicesChanged = devicesChanged
    }

    /// Answers one request: the row of `routes` that serves it, or 404, or
    /// 405 with the path's methods, or 401 for a caller the row (or, for a
    /// path or method the table lacks, every row of the path's first
    /// segment) does not admit.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let answer = Mutex<HTTPResponse?>(nil)
        let given = Semaphore()
        let reply = HTTPReply { response in
            answer.withLock { $0 = response }
            given.signal()
        }
        if let now = handle(request, reply: reply) { return now }
        given.wait()
        return answer.withLock { $0 }!
    }

    /// Answers one request, now (the response) or later (nil: the route's
    /// handler answers through `reply`, which the server then writes).
    ///
    /// In order: what a browser sent for another site's page (a post, or a
    /// read it did not navigate to) is a 403 before anything else (it is not a guess, and a hostile
    /// page cannot use it to hold the user's address back); an address held
    /// back for guessing gets a 429 before its credential is looked at; a
    /// caller the row does not admit a 401 (counted); a body not declared
    /// JSON under /api a 415; a phone naming another phone's device a 403.
    public func handle(_ request: HTTPRequest, reply: HTTPReply) -> HTTPResponse? {
        let segments = request.path.split(separator: "/")
        switch Self.table.resolve(method: request.method, segments: segments) {
        case .found(let route, let parameters):
            if route.access != .public, let refusal = crossSiteRefusal(request) { return refusal }
            if route.access != .public, let wait = throttled(request) { return wait }
            let caller = caller(request, acceptsBasic: route.challenge == .basic)
            guard caller.may(route.access) else { return refused(request, route.challenge) }
            if let refusal = mediaTypeRefusal(request) { return refusal }
            let call = RouteCall(request: request, parameters: parameters, caller: caller)
            if let refusal = ownershipRefusal(route, call) { return refusal }
            noteOldWayIn(caller, request)
            do {
                return try route.handler(self, call, reply)
            } catch let error as Invalid {
                return APIError.response(400, "Invalid request", details: error.details)
            } catch {
                storeFailed("\(request.method) \(request.path): \(error)")
                return APIError.response(500, "The device store failed; see the agent's log")
            }
        case .wrongMethod(let allowed):
            if let refusal = areaRefusal(segments, request) { return refusal }
            let methods = allowed.map(\.rawValue).joined(separator: ", ")
            var response = APIError.response(405, "Method not allowed; use \(methods)")
            response.extraHeaders = [("Allow", methods)]
            return response
        case .notFound:
            if let refusal = areaRefusal(segments, request) { return refusal }
            return APIError.response(404, "Not found")
        }
    }

    /// 403 for what a browser sent for another site's page (`CrossSite`: a
    /// post, or a read it did not navigate to); nil otherwise. Behind HA's
    /// ingress the page's origin is HA's, and the proxy says which host the
    /// browser asked for.
    private func crossSiteRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        let forwarded = request.peer.flatMap { ingressProxy.contains($0) ? request.headers["x-forwarded-host"] : nil }
        guard CrossSite.isCrossSite(request, forwardedHost: forwarded) else { return nil }
        metrics?.authFailure(outcome: "cross_site")
        if request.path.hasPrefix("/api/") || request.path == "/api" {
            return APIError.response(403, "Refused: sent by a web page of another site")
        }
        return htmlPage(403, "Refused", "<p>This form is only taken from the agent's own page.</p>")
    }

    /// 415 for a body under /api that is not declared `application/json`
    /// (a page can post text/plain to another site without asking; JSON it
    /// cannot, without a CORS preflight the agent never answers).
    private func mediaTypeRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        guard !request.body.isEmpty, request.path.hasPrefix("/api/"), !CrossSite.declaresJSON(request) else { return nil }
        return APIError.response(415, "The body must be JSON, sent with Content-Type: application/json")
    }

    /// 403 when the caller is a phone and the request names another
    /// device than the one its credential is bound to, wherever the row
    /// says the request names it (`Route.device`).
    private func ownershipRefusal(_ route: Route<Handler>, _ call: RouteCall) -> HTTPResponse? {
        guard case .phone = call.caller, let reference = route.device else { return nil }
        let named: String?
        switch reference {
        case .path(let name): named = call.parameters[name]
        case .query(let name): named = QueryString(call.request.query)?[name]
        case .body(let field):
            named = (try? JSONParser.parse(call.request.body))?.objectValue?[field]?.stringValue
        }
        guard let named, !call.caller.mayActFor(device: named) else { return nil }
        return APIError.response(403, "A phone's credential acts only for the device it registered")
    }

    /// Field problems, in the seed's {details: {field: [messages]}} form.
    struct Invalid: Error {
        var details: [String: [String]]
    }

    /// A path or method the table lacks, asked by a caller whom no row of
    /// the path's first segment admits (a stranger under /api): a 401, so
    /// strangers learn nothing of which routes exist. Nil otherwise. A row
    /// anyone may call deeper in the area (`/api/snapshots/:name`,
    /// `/api/pair`) admits only to paths under its own literal segments.
    private func areaRefusal(_ segments: [Substring], _ request: HTTPRequest) -> HTTPResponse? {
        let area = Self.table.area(of: segments)
        guard let first = area.first else { return nil }
        if let refusal = crossSiteRefusal(request) { return refusal }
        if let wait = throttled(request) { return wait }
        let caller = caller(request, acceptsBasic: first.challenge == .basic)
        let admits = area.contains { route in
            guard caller.may(route.access) else { return false }
            guard route.access.admitsAnyone else { return true }
            let literals = route.segments.prefix { if case .literal = $0 { return true } else { return false } }
            return zip(literals, segments).allSatisfy { segment, given in segment == .literal(String(given)) }
                && segments.count >= literals.count
        }
        return admits ? nil : refused(request, first.challenge)
    }

    /// Tells `oldWayIn` of an `/api` call with the shared token from another
    /// machine, or from a trusted network without a credential.
    private func noteOldWayIn(_ caller: Caller, _ request: HTTPRequest) {
        guard request.path.hasPrefix("/api/"), let peer = request.peer else { return }
        switch caller {
        case .tokenHolder where !TrustedNetworks.loopback.contains(peer), .trustedNetwork:
            oldWayIn(caller.description, TrustedNetworks.text(peer))
        default:
            break
        }
    }

    /// What a request's failures are counted against: its address (an
    /// IPv6 client's /64).
    private func source(_ request: HTTPRequest) -> String {
        AuthThrottle.source(request.peer)
    }

    /// 429 while the request's source is shut out for failed authentication.
    private func throttled(_ request: HTTPRequest) -> HTTPResponse? {
        guard let wait = authThrottle.waiting(source(request)) else { return nil }
        metrics?.authFailure(outcome: "throttled")
        var response = APIError.response(429, "Too many failed attempts; try again in \(wait) s")
        response.extraHeaders = [("Retry-After", String(wait))]
        return response
    }

    /// A 401, counted against the request's source.
    func refused(_ request: HTTPRequest, _ challenge: AuthChallenge) -> HTTPResponse {
        let source = source(request)
        let failure = authThrottle.failed(source)
        metrics?.authFailure(outcome: "refused")
        if failure.startsBurst { authThrottled(source, failure) }
        return unauthorized(challenge)
    }

    private func unauthorized(_ challenge: AuthChallenge) -> HTTPResponse {
        switch challenge {
        case .bearer:
            var response = APIError.response(401, "Missing or wrong API token (Authorization: Bearer …)")
            response.extraHeaders = [("WWW-Authenticate", "Bearer")]
            return response
        case .basic:
            // A browser asks for the token: any user name, the token as password.
            var response = HTTPResponse(
                status: 401, body: "PrintBridge: the status page needs the API token as the password.\n",
                contentType: "text/plain; charset=utf-8")
            response.extraHeaders = [("WWW-Authenticate", #"Basic realm="PrintBridge", charset="UTF-8""#)]
            return response
        }
    }

    /// Who sent the request. A credential presented is judged by itself,
    /// whatever the network: the admin token (Bearer; Basic's password too
    /// where the row asks a browser for it, `acceptsBasic`: the status
    /// page, never /api) or a phone's own credential; anything else in
    /// `Authorization` makes a stranger, so the guess is counted and a
    /// misconfigured app is told its credential is wrong. Without one:
    /// HA's ingress proxy, or a trusted network unless a browser sent it.
    func caller(_ request: HTTPRequest, acceptsBasic: Bool = false) -> Caller {
        guard let apiToken else { return .unguarded }
        if let header = request.headers["authorization"] {
            if Self.matches(header, apiToken, acceptsBasic: acceptsBasic) { return .tokenHolder }
            return phone(header) ?? .stranger
        }
        if let peer = request.peer {
            if ingressProxy.contains(peer) { return .ingressProxy }
            if trustedNetworks.contains(peer), !CrossSite.isFromBrowser(request) { return .trustedNetwork }
        }
        return .stranger
    }

    /// A phone's own credential (Bearer `pbp_…`), looked up by its digest;
    /// nil when there is none or it was revoked (then the caller is judged
    /// as if it had sent nothing).
    private func phone(_ header: String) -> Caller? {
        guard header.lowercased().hasPrefix("bearer ") else { return nil }
        let secret = header.dropFirst(7).trimmingWhitespace
        guard secret.hasPrefix(PhoneCredentials.credentialPrefix) else { return nil }
        do {
            guard let credential = try store.phoneCredential(hash: PhoneCredentials.digest(String(secret))),
                credential.revokedAt == nil
            else { return nil }
            return .phone(credentialID: credential.id, deviceID: credential.deviceID)
        } catch {
            storeFailed("a phone's credential: \(error)")
            return nil
        }
    }

    private static func matches(_ header: String, _ apiToken: String, acceptsBasic: Bool) -> Bool {
        let given: [UInt8]
        if header.lowercased().hasPrefix("bearer ") {
            given = Array(header.dropFirst(7).utf8)
        } else if acceptsBasic, header.lowercased().hasPrefix("basic "), let decoded = Base64.decode(header.dropFirst(6)),
            let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
        {
            given = Array(decoded[(colon + 1)...])
        } else {
            return false
        }
        return sameBytes(given, Array(apiToken.utf8))
    }

    /// Compared in constant time, so a secret cannot be guessed byte by byte.
    static func sameBytes(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = given.count == expected.count ? 0 : 1
        for index in 0..<min(given.count, expected.count) { difference |= Int(given[index] ^ expected[index]) }
        return difference == 0
    }

    /// Ready when the agent is (with metrics), else just alive.
    func health() -> HTTPResponse {
        guard let metrics else { return HTTPResponse(status: 200, body: #"{"status":"ok"}"#) }
        let (status, body) = metrics.health()
        return HTTPResponse(status: status, body: body)
    }

    func metricsExposition() -> HTTPResponse {
        guard let metrics else { return APIError.response(404, "Not found") }
        return HTTPResponse(status: 200, body: metrics.exposition(), contentType: "text/plain; version=0.0.4")
    }

    /// The status page, from the daemon's state and the store.
    func statusPage() -> HTTPResponse {
        let devices: [Device]
        let history: [PrintRecord]
        do {
            devices = try store.devicesAndActivities()
            history = try store.printHistory(limit: 200)
        } catch {
            storeFailed("GET /: \(error)")
            return HTTPResponse(
                status: 500, body: "PrintBridge: the device store failed; see the agent's log.\n",
                contentType: "text/plain; charset=utf-8")
        }
        var model = StatusPage.Model(
            overview: metrics?.overview(), printers: printers(), devices: devices, history: history,
            now: clock.now(), snapshots: snapshots?.latest() ?? [:])
        model.offersPairing = pairing != nil
        model.statistics = statusPageStatistics(now: model.now)
        for credential in (try? store.phoneCredentials()) ?? [] where credential.revokedAt == nil {
            if let device = credential.deviceID { model.liveCredentials[device, default: 0] += 1 }
        }
        model.formToken = formToken
        let page = StatusPage.render(model)
        var response = HTTPResponse(status: 200, body: page, contentType: "text/html; charset=utf-8")
        response.extraHeaders = StatusPage.headers
        return response
    }

    func apnsStatus() -> HTTPResponse {
        HTTPResponse(status: 200, body: JSONText.object([
            ("configured", apns.configured ? "true" : "false"), ("bundleId", JSONText.quoted(apns.bundleID)),
            ("production", apns.production ? "true" : "false"),
        ]))
    }

    /// The seed configured APNs on this call; PrintBridge does at start-up,
    /// so it reports what start-up found, in the seed's words.
    func apnsInit() -> HTTPResponse {
        guard apns.configured else {
            return APIError.response(
                400, "APNs not configured. Set APNS_TEAM_ID, APNS_KEY_ID, APNS_KEY_PATH (and APNS_BUNDLE_ID) and restart printbridge")
        }
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("message", JSONText.quoted("APNs configured")),
        ]))
    }

    func printerList() -> HTTPResponse {
        HTTPResponse(status: 200, body: JSONText.object([("success", "true"), ("printers", APIJSON.printers(printers()))]))
    }

    func object(_ request: HTTPRequest) throws -> [String: JSONValue] {
        guard let json = try? JSONParser.parse(request.body), let object = json.objectValue else {
            throw Invalid(details: ["body": ["must be a JSON object"]])
        }
        return object
    }

    private func token(_ object: [String: JSONValue], _ field: String, required: Bool, into problems: inout [String: [String]]) -> String? {
        guard let value = object[field], value != .null else {
            if required { problems[field, default: []].append("is required") }
            return nil
        }
        guard let text = value.stringValue, TokenFormat.isPlausibleToken(text) else {
            problems[field, default: []].append("must be a hex APNs token (64 to 400 hex digits)")
            return nil
        }
        return text.lowercased()
    }

    func text(_ object: [String: JSONValue], _ field: String, required: Bool, into problems: inout [String: [String]]) -> String? {
        guard let value = object[field], value != .null else {
            if required { problems[field, default: []].append("is required") }
            return nil
        }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= 512 else {
            problems[field, default: []].append("must be a non-empty string of at most 512 bytes")
            return nil
        }
        return text
    }

    func register(_ request: HTTPRequest, caller: Caller = .unguarded) throws -> HTTPResponse {
        let body = try object(request)
        var problems: [String: [String]] = [:]
        let apnsToken = token(body, "apnsToken", required: true, into: &problems)
        let haURL = text(body, "haUrl", required: true, into: &problems)
        if let haURL, !(haURL.hasPrefix("http://") || haURL.hasPrefix("https://")) {
            problems["haUrl", default: []].append("must be an http:// or https:// URL")
        }
        let prefix = text(body, "printerPrefix", required: false, into: &problems)
        let name = text(body, "printerName", required: false, into: &problems)
        // PrintBridge's extension: follow exactly these printers (the app sends one printerPrefix).
        var prefixes: [String]?
        if let list = body["printerPrefixes"], list != .null {
            let items = list.arrayValue?.compactMap(\.stringValue) ?? []
            if list.arrayValue?.count != items.count || items.count > 64
                || items.contains(where: { $0.isEmpty || $0.utf8.count > 512 })
            {
                problems["printerPrefixes", default: []].append("must be a list of at most 64 printer prefixes")
            } else if prefix != nil {
                problems["printerPrefixes", default: []].append("give printerPrefix or printerPrefixes, not both")
            } else {
                prefixes = items
            }
        }
        // PrintBridge's extension: the language of this phone's alerts.
        let language = text(body, "language", required: false, into: &problems)
        if let language, !Catalog.isLanguageTag(language) {
            problems["language", default: []].append("must be a language tag such as \"de\" or \"fr-CA\"")
        }
        guard problems.isEmpty, let apnsToken else { throw Invalid(details: problems) }
        let registration = try store.register(
            apnsToken: apnsToken, haURL: haURL, printerPrefix: prefix, printerName: name, printerPrefixes: prefixes,
            language: language)
        // A phone with its own credential: from now on the credential is this device's.
        if case .phone(let credential, _) = caller { try store.bindCredential(id: credential, deviceID: registration.deviceID) }
        devicesChanged()
        // The seed's three fields (its DeviceRegistrationResponse), and the
        // phone as `GET /api/devices/{deviceId}` shows it: the settings
        // screen needs no second call.
        let device = try store.device(id: registration.deviceID).map(APIJSON.device) ?? "null"
        return HTTPResponse(status: 200, body: JSONText.object([
            ("success", "true"), ("deviceId", JSONText.quoted(registration.deviceID)),
            ("message", JSONText.quoted(registration.created ? "Device registered" : "Device updated")),
            ("device", device),
        ]))
    }

    /// The phone's own device, for the app's settings screen (`APIJSON.device`);
    /// 404 when none is registered with this id (another phone's: 403, from the row).
    func device(_ deviceID: String) throws -> HTTPResponse {
        guard let device = try store.device(id: deviceID) else { return APIError.response(404, "Device not found") }
        return HTTPResponse(status: 200, body: JSONText.object([("success", "true"), ("device", APIJSON.device(device))]))
    }

    func settings(_ deviceID: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let body = try object(request)
        var problems: [String: [String]] = [:]
        let known = Set(NotificationPreferences.switches.map(\.name))
        var patch = DeviceStore.PreferencesPatch()
        for (key, value) in body where !AlertSchedule.keys.contains(key) {
            if !known.contains(key) { problems[key, default: []].append("is not a setting") }
            else if let flag = value.boolValue { patch.switches[key] = flag }
            else { problems[key, default: []].append("must be true or false") }
        }
        // PrintBridge's extension (issue 53): quiet hours, milestones, "minutes left", the re-telling.
        patch.schedule = AlertSchedule.patch(body, problems: &problems)
        guard problems.isEmpty else { throw Invalid(details: problems) }
        guard try store.updatePreferences(deviceID: deviceID, patch) else { return APIError.response(404, "Device not found") }
        devicesChanged()
        return HTTPResponse(status: 200, body: #"{"success":true,"message":"Settings updated"}"#)
    }

    func remove(_ deviceID: String) throws -> HTTPResponse {
        guard try store.removeDevice(id: deviceID) else { return APIError.response(404, "Device not found") }
        devicesChanged()
        return HTTPResponse(status: 200, body: #"{"success":true,"message":"Device unregistered"}"#)
    }

    /// The devices following a printer (the seed's list). A phone sees
    /// only its own row: other phones' ids are what the per-device routes
    /// take, and none of its business.
    func byPrinter(_ prefix: String, caller: Caller = .unguarded) throws -> HTTPResponse {
        let devices = try store.devices().filter { device in
            device.follows(prefix) && device.preferences.notificationsEnabled && caller.mayActFor(device: device.id)
        }
        let rows = devices.map { device in
            JSONText.object([
                ("id", JSONText.quoted(device.id)), ("apns_token", JSONText.quoted(TokenFormat.shortened(device.apnsToken))),
                ("printer_name", device.printerName.map(JSONText.quoted) ?? "null"),
            ] + NotificationPreferences.switches.map { entry in
                (entry.column, device.preferences[keyPath: entry.keyPath] ? "1" : "0")
            } + [("language", device.language.map(JSONText.quoted) ?? "null")])
        }
        return HTTPResponse(status: 200, body: #"{"success":true,"devices":["# + rows.joined(separator: ",") + "]}")
    }

    /// The seed's body names only the printer: the token is then an activity
    /// of its own, never guessed to be the phone that registered last (the
    /// seed's "last phone wins"). An optional `deviceId` (PrintBridge's
    /// extension) makes it that phone's; 404 when there is no such phone.
    func activityToken(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try object(request)
        var problems: [String: [String]] = [:]
        let token = token(body, "activityToken", required: true, into: &problems)
        let prefix = text(body, "printerPrefix", required: true, into: &problems)
        let deviceID = text(body, "deviceId", required: false, into: &problems)
        guard problems.isEmpty, let token, let prefix else { throw Invalid(details: problems) }
        guard try store.setActivityToken(token, printerPrefix: prefix, deviceID: deviceID) else {
            return APIError.response(404, "Device not found")
        }
        devicesChanged()
        return HTTPResponse(status: 200, body: #"{"success":true,"message":"Activity token registered"}"#)
    }

    func pushToStart(_ deviceID: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let body = try object(request)
        var problems: [String: [String]] = [:]
        let token = token(body, "pushToStartToken", required: true, into: &problems)
        guard problems.isEmpty, let token else { throw Invalid(details: problems) }
        guard try store.setPushToStartToken(token, deviceID: deviceID) else { return APIError.response(404, "Device not found") }
        devicesChanged()
        return HTTPResponse(status: 200, body: #"{"success":true,"message":"Push-to-start token registered"}"#)
    }
}
