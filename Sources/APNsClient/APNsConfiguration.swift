import PrintBridgeCore

/// Where and as whom to send: the seed server's APNS_* settings.
public struct APNsConfiguration: Hashable, Sendable {
    public enum Environment: String, Hashable, Sendable {
        case sandbox, production
    }

    /// The 10-character Apple Developer Team ID (`iss` of the provider token).
    public var teamID: String
    /// The 10-character ID of the APNs auth key (`kid`).
    public var keyID: String
    /// Path of the AuthKey_XXXXXXXXXX.p8 file.
    public var keyPath: String
    /// The app's bundle id: the alert topic, and the Live Activity topic's stem.
    public var bundleID: String
    public var environment: Environment
    /// Overrides Apple's host (a local test server), e.g. https://127.0.0.1:8443.
    public var baseURL: String?
    /// A CA bundle for `baseURL`'s certificate.
    public var caFile: String?
    /// Overrides the channel management API's host (a local test server).
    public var channelBaseURL: String?

    public init(
        teamID: String, keyID: String, keyPath: String, bundleID: String, environment: Environment = .sandbox,
        baseURL: String? = nil, caFile: String? = nil, channelBaseURL: String? = nil
    ) {
        self.channelBaseURL = channelBaseURL
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.bundleID = bundleID
        self.environment = environment
        self.baseURL = baseURL
        self.caFile = caFile
    }

    /// https://api.push.apple.com or https://api.sandbox.push.apple.com, unless overridden.
    public var endpoint: String {
        if let baseURL { return baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL }
        return environment == .production ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com"
    }

    /// `endpoint` as the HTTP/2 client's origin (checked by `problems`).
    public var origin: HTTPOrigin? { HTTPOrigin(endpoint) }

    /// The channel management API (iOS 18 broadcast channels), a host and
    /// port of its own: https://api-manage-broadcast.push.apple.com:2196 in
    /// production, https://api-manage-broadcast.sandbox.push.apple.com:2195
    /// in the sandbox (Apple, "Sending channel management requests to
    /// APNs"; the same in parse-community/node-apn lib/config.js and
    /// alexandercerutti/hapns src/channels/broadcast.ts). Broadcast pushes
    /// themselves go to `endpoint`. Unless overridden (`channelBaseURL`).
    public var channelEndpoint: String {
        if let channelBaseURL {
            return channelBaseURL.hasSuffix("/") ? String(channelBaseURL.dropLast()) : channelBaseURL
        }
        return environment == .production
            ? "https://api-manage-broadcast.push.apple.com:2196" : "https://api-manage-broadcast.sandbox.push.apple.com:2195"
    }

    /// `channelEndpoint` as an HTTP/2 client's origin.
    public var channelOrigin: HTTPOrigin? { HTTPOrigin(channelEndpoint) }

    /// Reads APNS_TEAM_ID, APNS_KEY_ID, APNS_KEY_PATH, APNS_BUNDLE_ID,
    /// APNS_PRODUCTION (true/false), APNS_BASE_URL, APNS_CA_FILE and
    /// APNS_CHANNELS_BASE_URL (the channel management API's, for a test server).
    /// Every problem is named in one error; no value of a secret is shown.
    public static func fromEnvironment(_ environment: [String: String]) throws(APNsConfigurationError) -> APNsConfiguration {
        func value(_ name: String) -> String? {
            guard let raw = environment[name] else { return nil }
            let trimmed = String(raw.trimmingWhitespace)
            return trimmed.isEmpty ? nil : trimmed
        }
        var problems: [String] = []
        let required = ["APNS_TEAM_ID", "APNS_KEY_ID", "APNS_KEY_PATH", "APNS_BUNDLE_ID"]
        let missing = required.filter { value($0) == nil }
        if !missing.isEmpty { problems.append("\(missing.joined(separator: ", ")) not set") }
        var production = false
        if let flag = value("APNS_PRODUCTION") {
            switch flag.lowercased() {
            case "true", "1", "yes", "on": production = true
            case "false", "0", "no", "off": production = false
            default: problems.append("APNS_PRODUCTION must be true or false")
            }
        }
        let configuration = APNsConfiguration(
            teamID: value("APNS_TEAM_ID") ?? "", keyID: value("APNS_KEY_ID") ?? "", keyPath: value("APNS_KEY_PATH") ?? "",
            bundleID: value("APNS_BUNDLE_ID") ?? "", environment: production ? .production : .sandbox,
            baseURL: value("APNS_BASE_URL"), caFile: value("APNS_CA_FILE"), channelBaseURL: value("APNS_CHANNELS_BASE_URL"))
        problems += configuration.problems(skippingMissing: true)
        guard problems.isEmpty else { throw APNsConfigurationError(problems: problems) }
        return configuration
    }

    /// Everything wrong with these values (the key file is checked when loaded).
    public func problems(skippingMissing: Bool = false) -> [String] {
        var problems: [String] = []
        func isAppleID(_ text: String) -> Bool {
            text.utf8.count == 10 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
        }
        if !(skippingMissing && teamID.isEmpty) && !isAppleID(teamID) {
            problems.append("APNS_TEAM_ID must be the 10-character Team ID (capital letters and digits)")
        }
        if !(skippingMissing && keyID.isEmpty) && !isAppleID(keyID) {
            problems.append("APNS_KEY_ID must be the 10-character Key ID (capital letters and digits)")
        }
        let bundleOK = bundleID.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2E || $0 == 0x2D
        } && bundleID.contains(".") && !bundleID.hasPrefix(".") && !bundleID.hasSuffix(".")
        if !(skippingMissing && bundleID.isEmpty) && !bundleOK {
            problems.append("APNS_BUNDLE_ID must be a bundle id such as com.example.PrinterMonitor")
        }
        if let baseURL, HTTPOrigin(baseURL) == nil {
            problems.append("APNS_BASE_URL must be https://host or https://host:port, with no path (APNs speaks HTTP/2 over TLS)")
        }
        if let channelBaseURL, HTTPOrigin(channelBaseURL) == nil {
            problems.append("APNS_CHANNELS_BASE_URL must be https://host or https://host:port, with no path")
        }
        return problems
    }
}

/// Configuration that cannot work, with every reason.
public struct APNsConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var problems: [String]
    public var description: String { "APNs configuration: " + problems.joined(separator: "; ") }
}
