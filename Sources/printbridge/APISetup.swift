import ControlAPI
import DeviceStore
import Logging
import NamedThreads
import PrintBridgeCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Starting the app's HTTP API for `run`, from API_LISTEN and API_TOKEN /
/// API_TOKEN_FILE.
enum APISetup {
    /// The server, or nil when API_LISTEN is "off". Exit 78 for bad settings.
    static func start(
        store: DeviceStore, apns: ControlAPI.APNsStatus, printers: @escaping @Sendable () -> [PrinterSnapshot],
        devicesChanged: @escaping @Sendable () -> Void, allowWithoutToken: Bool, logger: Logger, metrics: AgentMetrics
    ) throws
        -> HTTPServer?
    {
        guard let listen = try listenAddress(allowWithoutToken: allowWithoutToken) else { return nil }
        let host = listen.host, port = listen.port, token = listen.token
        if token == nil {
            logger.warning("the API accepts requests without a token (--no-api-auth)", metadata: ["api.address": "\(host):\(port)"])
        }
        let trusted = try trustedNetworks()
        if let text = StandardStreams.environment("API_TRUSTED_NETWORKS"), !trusted.isEmpty, token != nil {
            logger.warning("the API accepts requests without a token from trusted networks (API_TRUSTED_NETWORKS)",
                           metadata: ["api.trusted_networks": "\(text)"])
        }
        if StandardStreams.environment("SUPERVISOR_TOKEN") != nil, token != nil {
            logger.info("Home Assistant's ingress proxy opens the status page without the API token",
                        metadata: ["api.ingress_proxy": "\(supervisorAddress)"])
        }
        let api = ControlAPI(
            store: store, apiToken: token, apns: apns,
            printers: printers, devicesChanged: devicesChanged, metrics: metrics,
            trustedNetworks: trusted,
            storeFailed: { logger.error("the app's request failed in the device store", metadata: ["error": "\($0)"]) })
        // systemd's default soft limit is 1,024 descriptors: take up to
        // 4,096 of the hard limit so the API can hold its 1,024 connections.
        var descriptors = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors) == 0, descriptors.rlim_cur < 4096 {
            descriptors.rlim_cur = min(4096, descriptors.rlim_max)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptors)
        }
        do {
            let server = try HTTPServer(host: host, port: port) { api.handle($0) }
            try server.start()
            let address = "\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
            logger.info("API listening", metadata: ["api.address": "\(address)", "api.port": .stringConvertible(server.port)])
            return server
        } catch let error as NamedThread.StartError {
            throw CommandFailure.system("\(error)")
        } catch {
            throw CommandFailure.config("\(error)")
        }
    }

    /// API_LISTEN as host (brackets off) and port; nil when it is "off".
    /// Exit 78 for anything but host:port. `run`, `check-config` and `health` read it here.
    static func listenSetting() throws -> (host: String, port: Int)? {
        let listen = StandardStreams.environment("API_LISTEN") ?? "0.0.0.0:3000"
        if listen.lowercased() == "off" { return nil }
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw CommandFailure.config("API_LISTEN must be host:port (e.g. 0.0.0.0:3000) or off")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    /// API_LISTEN and the API token, checked; nil when the API is off.
    static func listenAddress(allowWithoutToken: Bool) throws -> (host: String, port: Int, token: String?)? {
        guard let (host, port) = try listenSetting() else { return nil }
        // The server binds an address, not a name: said here, so check-config
        // refuses what run would refuse.
        var address = in6_addr()
        guard inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1 else {
            let hint = host.lowercased() == "localhost" ? " (for localhost write 127.0.0.1:\(port))" : ""
            throw CommandFailure.config("API_LISTEN: \(host) is not an IP address to listen on\(hint)")
        }
        let token = try apiToken()
        if token == nil, !allowWithoutToken {
            throw CommandFailure.config("API_TOKEN or API_TOKEN_FILE not set: the app's API needs a token "
                + "(or run with --no-api-auth on a network you trust, or API_LISTEN=off)"
                + StandardStreams.credentialHint(for: "API_TOKEN_FILE"))
        }
        return (host, port, token)
    }

    /// Home Assistant's Supervisor, which proxies ingress requests (the
    /// status page in HA's sidebar) to an add-on: the third address of the
    /// hassio network, 172.30.32.0/23 (supervisor/docker/network.py,
    /// `DockerNetwork.supervisor`).
    static let supervisorAddress = "172.30.32.2/32"

    /// API_TRUSTED_NETWORKS, checked: networks whose clients need no token.
    /// Inside an add-on (SUPERVISOR_TOKEN set) the Supervisor's ingress
    /// proxy is trusted too: Home Assistant has already logged the user in.
    static func trustedNetworks() throws -> TrustedNetworks {
        var text = StandardStreams.environment("API_TRUSTED_NETWORKS") ?? ""
        if StandardStreams.environment("SUPERVISOR_TOKEN") != nil {
            text += (text.isEmpty ? "" : ",") + supervisorAddress
        }
        guard !text.isEmpty else { return TrustedNetworks() }
        do throws(TrustedNetworks.ParseError) { return try TrustedNetworks(parsing: text) } catch {
            throw CommandFailure.config("API_TRUSTED_NETWORKS: \(error)")
        }
    }

    static func apiToken() throws -> String? {
        if let token = StandardStreams.environment("API_TOKEN") { return token }
        guard let path = StandardStreams.environment("API_TOKEN_FILE") else { return nil }
        guard let text = StandardStreams.readSmallFile(path),
            let token = text.split(whereSeparator: \.isNewline).first.map(String.init), !token.isEmpty
        else {
            throw CommandFailure.config("API_TOKEN_FILE \(path) cannot be read or is empty")
        }
        return token
    }
}
