import APNsClient
import ControlAPI
import HomeAssistantLink
import PrintBridgeCore

#if canImport(Glibc)
import Glibc
#endif

/// The settings of the agent's connections: Home Assistant, the app's API, APNs.
extension Settings {
    /// The connection to Home Assistant.
    public struct HomeAssistant: Sendable {
        public let endpoint: HAEndpoint?
        /// HA_TOKEN, the first line of HA_TOKEN_FILE, or in an add-on the Supervisor's token.
        public let token: String?
        public let caFile: String?
        public let session: HASession.Configuration
        public let maximumMessageBytes: Int
        let missingTokenHint: String

        init(_ reader: inout SettingReader) {
            var endpoint: HAEndpoint?
            if let url = reader.text("HA_URL") {
                do { endpoint = try HAEndpoint(url: url) } catch { reader.problem(.homeAssistant, "HA_URL", error.description) }
            }
            self.endpoint = endpoint
            var token = reader.text("HA_TOKEN") ?? reader.token(inFile: "HA_TOKEN_FILE", .homeAssistant)
            // bashio sends the Supervisor's token to the Supervisor's proxy:
            // host `supervisor`, or the host and port of SUPERVISOR_API.
            if token == nil, reader.text("HA_TOKEN_FILE") == nil, let endpoint {
                let supervisor = reader.environment("SUPERVISOR_API").flatMap { try? HAEndpoint(url: $0) }
                if endpoint.host == "supervisor" || (endpoint.host == supervisor?.host && endpoint.port == supervisor?.port) {
                    token = reader.environment("SUPERVISOR_TOKEN")
                }
            }
            self.token = token
            caFile = reader.text("HA_CA_FILE")
            if let caFile, access(caFile, R_OK) != 0 {  // libwebsockets reads it when connecting
                reader.problem(.homeAssistant, "HA_CA_FILE", "HA_CA_FILE \(caFile) cannot be read")
            }
            var session = HASession.Configuration()
            if let interval = reader.positiveNumber("HA_PING_INTERVAL", .homeAssistant) { session.pingInterval = interval }
            if let timeout = reader.positiveNumber("HA_PONG_TIMEOUT", .homeAssistant) { session.pongTimeout = timeout }
            self.session = session
            maximumMessageBytes = Int((reader.positiveNumber("HA_MAX_MESSAGE_MB", .homeAssistant) ?? 64) * 1_048_576)
            missingTokenHint = reader.credentialHint(for: "HA_TOKEN_FILE")
        }

        /// Where and with what token to connect, or the problem of the one missing.
        public func connection() throws(SettingProblem) -> (endpoint: HAEndpoint, token: String) {
            guard let endpoint else {
                throw SettingProblem(.homeAssistant, "HA_URL", "HA_URL not set (e.g. http://homeassistant.local:8123)")
            }
            guard let token else {
                throw SettingProblem(
                    .homeAssistant, "HA_TOKEN",
                    "HA_TOKEN or HA_TOKEN_FILE not set (a long-lived access token from your HA profile)" + missingTokenHint)
            }
            return (endpoint, token)
        }
    }

    /// The app's HTTP API.
    public struct API: Sendable {
        public struct Address: Hashable, Sendable {
            public let host: String
            public let port: Int

            public init(host: String, port: Int) {
                self.host = host
                self.port = port
            }
        }

        /// Where to listen; nil when API_LISTEN is off (or not an address).
        public let listen: Address?
        public let token: String?
        /// Networks whose clients need no token for what the seed app calls (API_TRUSTED_NETWORKS).
        public let trustedNetworks: TrustedNetworks
        /// Home Assistant's ingress proxy in an add-on (the Supervisor's
        /// address): the status page behind HA's own sign-in, and the seed app's routes.
        public let ingressProxy: TrustedNetworks
        /// API_INGRESS_PROXY as written.
        public let ingressProxyText: String?
        /// API_TRUSTED_NETWORKS as written.
        public let trustedNetworksText: String?
        /// Inside an add-on: the Supervisor's ingress proxy is trusted.
        public let trustsIngressProxy: Bool
        let missingTokenHint: String
        /// API_TLS: `auto` (HTTPS when listening beyond loopback) or `off`.
        public let tlsAuto: Bool
        /// API_CERT_FILE and API_KEY_FILE: the user's certificate (PEM, a
        /// chain's first) and its key, instead of the agent's own.
        public let certificateFile: String?
        public let keyFile: String?
        /// API_PLAIN_HTTP: plain HTTP from the LAN beside HTTPS: nil for
        /// `auto` (only for a store that served phones before HTTPS existed).
        public let plainHTTP: Bool?
        /// API_HOME_URL: where phones reach the API at home, the pairing QR
        /// code's `url`; nil: API_LISTEN with this machine's LAN address.
        public let homeURL: PhoneURL?
        /// API_OUTSIDE_URL: where they reach it from outside the home (a port
        /// forward, a tunnel, a proxy), the QR code's `outsideUrl`.
        public let outsideURL: PhoneURL?

        /// Whether the API speaks HTTPS: API_TLS=auto and an address beyond loopback.
        public var servesTLS: Bool { Self.servesTLS(listen: listen, tlsAuto: tlsAuto) }

        static func servesTLS(listen: Address?, tlsAuto: Bool) -> Bool {
            guard tlsAuto, let listen else { return false }
            return !(listen.host.hasPrefix("127.") || listen.host == "::1")
        }

        /// Home Assistant's Supervisor, which proxies ingress requests (the
        /// status page in HA's sidebar) to an add-on: the third address of the
        /// hassio network, 172.30.32.0/23 (supervisor/docker/network.py,
        /// `DockerNetwork.supervisor`).
        public static let supervisorAddress = "172.30.32.2/32"

        init(_ reader: inout SettingReader) {
            listen = Self.address(&reader)
            token = reader.text("API_TOKEN") ?? reader.token(inFile: "API_TOKEN_FILE", .api)
            trustedNetworksText = reader.text("API_TRUSTED_NETWORKS")
            trustsIngressProxy = reader.environment("SUPERVISOR_TOKEN") != nil
            var trusted = TrustedNetworks()
            if let text = trustedNetworksText, !text.isEmpty {
                do throws(TrustedNetworks.ParseError) { trusted = try TrustedNetworks(parsing: text) } catch {
                    reader.problem(.api, "API_TRUSTED_NETWORKS", "API_TRUSTED_NETWORKS: \(error)")
                }
            }
            trustedNetworks = trusted
            // API_INGRESS_PROXY: where HA's ingress proxy connects from, if not
            // the Supervisor's fixed address (a proxy of your own in front of HA).
            var ingress = TrustedNetworks()
            if let text = reader.text("API_INGRESS_PROXY") ?? (trustsIngressProxy ? Self.supervisorAddress : nil) {
                do throws(TrustedNetworks.ParseError) { ingress = try TrustedNetworks(parsing: text) } catch {
                    reader.problem(.api, "API_INGRESS_PROXY", "API_INGRESS_PROXY: \(error)")
                }
            }
            ingressProxy = ingress
            ingressProxyText = reader.text("API_INGRESS_PROXY")
            missingTokenHint = reader.credentialHint(for: "API_TOKEN_FILE")
            switch reader.text("API_TLS")?.lowercased() {
            case nil, "auto", "on", "true": tlsAuto = true
            case "off", "false": tlsAuto = false
            case let other?:
                reader.problem(.api, "API_TLS", "API_TLS must be auto or off, not \(other)")
                tlsAuto = true
            }
            certificateFile = reader.text("API_CERT_FILE")
            keyFile = reader.text("API_KEY_FILE")
            if (certificateFile == nil) != (keyFile == nil) {
                reader.problem(.api, certificateFile == nil ? "API_CERT_FILE" : "API_KEY_FILE",
                               "API_CERT_FILE and API_KEY_FILE go together: the certificate and its key")
            }
            if reader.text("API_PLAIN_HTTP")?.lowercased() == "auto" {
                plainHTTP = nil
            } else {
                plainHTTP = reader.flag("API_PLAIN_HTTP", .api)
            }
            let tls = Self.servesTLS(listen: listen, tlsAuto: tlsAuto)
            homeURL = Self.phoneURL("API_HOME_URL", &reader, servesTLS: tls)
            outsideURL = Self.phoneURL("API_OUTSIDE_URL", &reader, servesTLS: tls)
        }

        /// API_LISTEN as host (brackets off) and port: an address, since the
        /// server binds an address, not a name.
        private static func address(_ reader: inout SettingReader) -> Address? {
            let listen = reader.text("API_LISTEN") ?? "0.0.0.0:3000"
            if listen.lowercased() == "off" { return nil }
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                reader.problem(.api, "API_LISTEN", "API_LISTEN must be host:port (e.g. 0.0.0.0:3000) or off")
                return nil
            }
            var host = String(listen[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            var address = in6_addr()
            guard inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1 else {
                let hint = host.lowercased() == "localhost" ? " (for localhost write 127.0.0.1:\(port))" : ""
                reader.problem(.api, "API_LISTEN", "API_LISTEN: \(host) is not an IP address to listen on\(hint)")
                return nil
            }
            return Address(host: host, port: port)
        }

        /// Where to serve the API, or nil when it is off; a token is needed
        /// unless `allowWithoutToken` (--no-api-auth).
        public func address(allowWithoutToken: Bool) throws(SettingProblem) -> Address? {
            guard let listen else { return nil }
            if token == nil, !allowWithoutToken {
                throw SettingProblem(
                    .api, "API_TOKEN",
                    "API_TOKEN or API_TOKEN_FILE not set: the app's API needs a token "
                        + "(or run with --no-api-auth on a network you trust, or API_LISTEN=off)" + missingTokenHint)
            }
            return listen
        }
    }

    /// Apple's push service.
    public struct APNs: Sendable {
        /// The configuration, or why there is none (every reason in one line).
        public let configuration: Result<APNsConfiguration, SettingProblem>
        /// Whether any APNs credential is set (a dry run without one is fine).
        public let isConfigured: Bool

        init(_ reader: inout SettingReader) {
            let names = ["APNS_TEAM_ID", "APNS_KEY_ID", "APNS_KEY_PATH", "APNS_BUNDLE_ID", "APNS_PRODUCTION", "APNS_BASE_URL", "APNS_CA_FILE",
                         "APNS_CHANNELS_BASE_URL"]
            var given: [String: String] = [:]
            for name in names { given[name] = reader.text(name) }
            isConfigured = given.keys.contains { $0 != "APNS_BUNDLE_ID" }
            do throws(APNsConfigurationError) {
                configuration = .success(try APNsConfiguration.fromEnvironment(given))
            } catch {
                configuration = .failure(SettingProblem(
                    .apns, nil, "\(error)" + reader.credentialHint(for: "APNS_KEY_PATH")))
            }
        }
    }
}
