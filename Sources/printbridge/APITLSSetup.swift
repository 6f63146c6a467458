import AgentSettings
import ControlAPI
import DeviceStore
import Logging
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The API's HTTPS for `run` and `pair`: the certificate (the user's, or the
/// agent's own in the state directory, made on first use), and who may still
/// speak plain HTTP on the same port.
enum APITLSSetup {
    /// The certificate the API serves, or nil when it speaks plain HTTP
    /// (API_TLS=off, or listening on loopback only). Makes the agent's own on
    /// first use (logged with its fingerprint).
    static func certificate(_ settings: Settings, logger: Logger?) throws -> APICertificate? {
        let api = settings.api
        guard api.servesTLS else { return nil }
        do {
            if let certificate = api.certificateFile, let key = api.keyFile {
                return try APICertificate.load(certificate: certificate, key: key)
            }
            let (own, made) = try APICertificate.own(in: StateDirectory.path(settings), hostNames: ownNames(settings))
            if made {
                logger?.notice("made the API's own TLS certificate; phones pin its fingerprint (printbridge pair)", metadata: [
                    "api.certificate": "\(own.certificatePath)", "api.fingerprint": "\(own.fingerprint)",
                ])
            }
            return own
        } catch {
            throw CommandFailure.config("the API's TLS certificate: \(error)")
        }
    }

    /// The certificate the API would serve, only if it is there already
    /// (`check-config` makes nothing); nil for plain HTTP or none yet.
    static func existingCertificate(_ settings: Settings) -> APICertificate? {
        let api = settings.api
        guard api.servesTLS else { return nil }
        if let certificate = api.certificateFile, let key = api.keyFile {
            return try? APICertificate.load(certificate: certificate, key: key)
        }
        let own = APICertificate.ownPaths(in: StateDirectory.path(settings))
        return try? APICertificate.load(certificate: own.certificate, key: own.key)
    }

    /// HTTPS beside plain HTTP for the server: plain only from loopback, the
    /// trusted networks (the unmodified seed app, HA's ingress proxy in an
    /// add-on) and, while upgrading, the LAN (API_PLAIN_HTTP, or `auto` for a
    /// store whose phones were paired before HTTPS); plain HTTP from the LAN
    /// is logged once a day with what to change.
    static func policy(
        _ settings: Settings, certificate: APICertificate, store: DeviceStore, logger: Logger
    ) throws -> HTTPServer.TLSPolicy {
        let context: TLSServerContext
        do { context = try TLSServerContext(certificate) } catch {
            throw CommandFailure.config("the API's TLS certificate: \(error)")
        }
        let api = settings.api
        let lan = try api.plainHTTP ?? store.hadPlainHTTPPhones()
        let trusted = api.trustedNetworks, ingress = api.ingressProxy
        let lastTold = Mutex<Double?>(nil)
        let hint = (try? PairingAddress(settings, secure: true).home) ?? "https://"
        return HTTPServer.TLSPolicy(context: context, httpsHint: hint) { peer in
            guard let peer else { return false }
            if TrustedNetworks.loopback.contains(peer) || ingress.contains(peer) { return true }
            let allowed = lan || trusted.contains(peer)
            if allowed {
                let now = MonotonicClock.seconds()
                let tell = lastTold.withLock { last -> Bool in
                    guard last.map({ now - $0 >= 86_400 }) ?? true else { return false }
                    last = now
                    return true
                }
                if tell {
                    logger.warning(
                        "the app's API answered plain HTTP from the LAN; pair the app again (printbridge pair) for HTTPS with the pinned certificate, then set API_PLAIN_HTTP=false",
                        metadata: ["api.peer": "\(TrustedNetworks.text(peer))", "api.plain_http": "\(lan ? "upgrading" : "trusted network")"])
                }
            }
            return allowed
        }
    }

    /// The names the agent's own certificate is made for (with localhost and
    /// 127.0.0.1): this machine's host name and LAN address, and the hosts
    /// of API_HOME_URL and API_OUTSIDE_URL, so that a browser or curl checking
    /// names accepts it there too. Phones pin it and do not ask.
    static func ownNames(_ settings: Settings) -> [String] {
        let configured = [settings.api.homeURL, settings.api.outsideURL].compactMap { $0?.host }
        return [hostName(), PairCommand.lanAddress()].compactMap { $0 } + configured
    }

    /// This machine's host name, for the certificate's names.
    static func hostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }
}
