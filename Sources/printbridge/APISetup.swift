import AgentSettings
import ControlAPI
import DeviceStore
import Logging
import NamedThreads
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Starting the app's HTTP API for `run`, from the API settings.
enum APISetup {
    /// The server, listening but not yet serving (it is a service of `run`'s
    /// group), or nil when API_LISTEN is "off". Exit 78 for bad settings
    /// and for an address it cannot listen on.
    static func server(
        settings: Settings, store: DeviceStore, apns: ControlAPI.APNsStatus, printers: @escaping @Sendable () -> [PrinterSnapshot],
        devicesChanged: @escaping @Sendable () -> Void, allowWithoutToken: Bool, logger: Logger, metrics: AgentMetrics,
        pressButton: ButtonPresser? = nil, snapshots: SnapshotServing? = nil, testPushes: TestPushQueue? = nil,
        alertOpened: @escaping @Sendable (String) -> Void = { _ in }
    ) throws
        -> HTTPServer?
    {
        guard let listen = try address(settings, allowWithoutToken: allowWithoutToken) else { return nil }
        let api = settings.api
        let host = listen.host, port = listen.port, token = api.token
        if token == nil {
            logger.warning("the API accepts requests without a token (--no-api-auth)", metadata: ["api.address": "\(host):\(port)"])
        }
        if let text = api.trustedNetworksText, token != nil {
            logger.warning("the API accepts requests without a token from trusted networks (API_TRUSTED_NETWORKS)",
                           metadata: ["api.trusted_networks": "\(text)"])
        }
        if api.trustsIngressProxy, token != nil {
            logger.info("Home Assistant's ingress proxy opens the status page without the API token",
                        metadata: ["api.ingress_proxy": "\(Settings.API.supervisorAddress)"])
        }
        let certificate = try APITLSSetup.certificate(settings, logger: logger)
        let phones = try PairingAddress(settings, secure: certificate != nil)
        try phones.checkFitsQRCode(secure: certificate != nil)
        var addresses: Logger.Metadata = [
            "api.home_url": "\(phones.home)", "api.home_url_from": "\(phones.homeIsGiven ? "API_HOME_URL" : "API_LISTEN")",
        ]
        if let outside = phones.outside { addresses["api.outside_url"] = "\(outside)" }
        logger.info("pairing gives phones these addresses", metadata: addresses)
        for warning in phones.warnings(settings, certificate: certificate) { logger.warning("\(warning)") }
        let control = ControlAPI(
            store: store, apiToken: token, apns: apns,
            printers: printers, devicesChanged: devicesChanged, metrics: metrics,
            trustedNetworks: api.trustedNetworks,
            storeFailed: { logger.error("the app's request failed in the device store", metadata: ["error": "\($0)"]) },
            pressButton: pressButton, actionTaken: PrinterActionSetup.log(logger), snapshots: snapshots,
            ingressProxy: api.ingressProxy,
            authThrottled: { source, failure in
                logger.warning("too many failed API authentications from one address; it is held back", metadata: [
                    "api.peer": "\(source)", "api.failures": .stringConvertible(failure.failures),
                    "api.retry_after": .stringConvertible(Int(failure.blockedFor)),
                ])
            },
            oldWayIn: OldWayIn(logger).note,
            pairing: token == nil ? nil : PairCommand.offer(settings, store: store, certificate: certificate),
            testPushes: testPushes, alertOpened: alertOpened)
        // systemd's default soft limit is 1,024 descriptors: take up to
        // 4,096 of the hard limit so the API can hold its 1,024 connections.
        var descriptors = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors) == 0, descriptors.rlim_cur < 4096 {
            descriptors.rlim_cur = min(4096, descriptors.rlim_max)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors)
        }
        let tls = try certificate.map { try APITLSSetup.policy(settings, certificate: $0, store: store, logger: logger) }
        do {
            // A flood of connections (a TLS one takes about 50 KB while open)
            // leaves its freed memory resident in glibc's heap until a trim:
            // after 9,000 hostile ones, 500 at once, RssAnon stayed at 40 MiB
            // (3.2 before) through a quiet minute. The server trims once it is
            // idle again after a busy spell (scripts/bench/connection_flood.py).
            let server = try HTTPServer(host: host, port: port, tls: tls, whenIdle: { FreedMemory.release() }) {
                control.handle($0, reply: $1)
            }
            let address = "\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
            var metadata: Logger.Metadata = [
                "api.address": "\(address)", "api.port": .stringConvertible(server.port),
                "api.tls": "\(certificate == nil ? "off" : "on")",
            ]
            if let certificate { metadata["api.fingerprint"] = "\(certificate.fingerprint)" }
            logger.info("API listening", metadata: metadata)
            return server
        } catch {
            throw CommandFailure.config("the app's API: \(error)")
        }
    }

    /// Where the API listens, or nil when it is off: its settings checked,
    /// and a token required unless `allowWithoutToken`. `run`, `check-config`
    /// and `pair` ask here.
    static func address(_ settings: Settings, allowWithoutToken: Bool) throws -> Settings.API.Address? {
        try settings.check([.api])
        do { return try settings.api.address(allowWithoutToken: allowWithoutToken) } catch {
            throw settings.failure(error)
        }
    }
}

/// Once a day per way in: a phone still uses the shared API token or a
/// trusted network without its own credential; the log says what to change.
final class OldWayIn: Sendable {
    private let logger: Logger
    private let told = Mutex([String: Double]())

    init(_ logger: Logger) { self.logger = logger }

    var note: @Sendable (String, String) -> Void {
        { [self] caller, peer in
            let now = MonotonicClock.seconds()
            let tell = told.withLock { told -> Bool in
                guard told[caller].map({ now - $0 >= 86_400 }) ?? true else { return false }
                told[caller] = now
                return true
            }
            guard tell else { return }
            logger.warning(
                caller == "api token"
                    ? "a phone uses the shared API token (the admin credential); pair it for its own (printbridge pair), which can be revoked alone"
                    : "a device on API_TRUSTED_NETWORKS used the API without a credential; pair the app (printbridge pair), then remove API_TRUSTED_NETWORKS",
                metadata: ["api.caller": "\(caller)", "api.peer": "\(peer)"])
        }
    }
}
