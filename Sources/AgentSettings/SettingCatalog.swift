/// Every setting the agent knows, with the part of the agent it belongs to.
/// A settings file may hold these names (in lower case) and no others.
public struct SettingDefinition: Sendable {
    /// The environment variable's name, e.g. HA_URL; the file's key is its lower case.
    public let name: String
    public let section: Settings.Section
    /// The value is never printed (check-config shows `<redacted>`).
    public let secret: Bool
    /// SIGHUP applies a new value at once; any other change needs a restart.
    public let appliesLive: Bool
    /// Takes several values separated by commas (MILESTONES=25,50,75),
    /// which the settings file may also give as a YAML list.
    public let takesList: Bool
    public let help: String

    init(_ name: String, _ section: Settings.Section, secret: Bool = false, live: Bool = false, list: Bool = false, _ help: String) {
        self.name = name
        self.section = section
        self.secret = secret
        self.appliesLive = live
        self.takesList = list
        self.help = help
    }
}

public enum SettingCatalog {
    /// Every setting, in the order check-config prints them.
    public static let all: [SettingDefinition] = [
        .init("HA_URL", .homeAssistant, "Home Assistant, http(s)://host:8123 or ws(s)://…/api/websocket"),
        .init("HA_TOKEN", .homeAssistant, secret: true, "long-lived access token (prefer ha_token_file)"),
        .init("HA_TOKEN_FILE", .homeAssistant, "file holding the access token"),
        .init("HA_CA_FILE", .homeAssistant, "CA for a self-signed HA certificate"),
        .init("HA_PING_INTERVAL", .homeAssistant, "seconds between pings (30)"),
        .init("HA_PONG_TIMEOUT", .homeAssistant, "seconds to wait for a pong (10)"),
        .init("HA_MAX_MESSAGE_MB", .homeAssistant, "largest HA message (64)"),
        .init("API_LISTEN", .api, "host:port of the app's API (0.0.0.0:3000) or off"),
        .init("API_TOKEN", .api, secret: true, "bearer token of the app's API (prefer api_token_file)"),
        .init("API_TOKEN_FILE", .api, "file holding the API token"),
        .init("API_INGRESS_PROXY", .api, list: true,
              "address of Home Assistant's ingress proxy (the status page behind HA's sign-in); default 172.30.32.2 in the add-on"),
        .init("API_TLS", .api, "auto: HTTPS when listening beyond loopback, with the agent's own pinned certificate (default); off"),
        .init("API_CERT_FILE", .api, "your certificate for the API's HTTPS (PEM), e.g. from a reverse proxy's ACME"),
        .init("API_KEY_FILE", .api, "the key of API_CERT_FILE (PEM)"),
        .init("API_PLAIN_HTTP", .api,
              "plain HTTP from the LAN beside HTTPS: auto (only for phones paired before HTTPS, default), true, false"),
        .init("API_HOME_URL", .api,
              "the API's address phones use at home, put in pairing's QR code, e.g. https://192.168.1.20:3000 "
                  + "(default: API_LISTEN with this machine's LAN address; in Docker or an add-on that is the container's)"),
        .init("API_OUTSIDE_URL", .api,
              "the API's address from outside the home (a port forward, a tunnel, a proxy), e.g. https://printbridge.example.com; "
                  + "in the QR code beside the home one, which the app tries first"),
        .init("API_TRUSTED_NETWORKS", .api, list: true,
              "networks whose clients need no API token, e.g. 192.168.1.0/24 (the unmodified app sends none)"),
        .init("APNS_TEAM_ID", .apns, "Apple team id"),
        .init("APNS_KEY_ID", .apns, "id of the .p8 key"),
        .init("APNS_KEY_PATH", .apns, "the .p8 key file"),
        .init("APNS_BUNDLE_ID", .apns, "the app's bundle id"),
        .init("APNS_PRODUCTION", .apns, "true for production APNs (false: sandbox)"),
        .init("APNS_BASE_URL", .apns, "APNs server override (tests)"),
        .init("APNS_CA_FILE", .apns, "CA for APNS_BASE_URL (tests)"),
        .init("APNS_CHANNELS_BASE_URL", .apns, "APNs channel management server override (tests)"),
        .init("APNS_RETRY_MAX", .delivery, "seconds at most between retries of pushes APNs has not answered (30)"),
        .init("DRY_RUN", .delivery,
              "true: print the pushes instead of sending them (as --dry-run), e.g. before the APNs key exists"),
        .init("NOTIFICATION_HISTORY_DAYS", .delivery,
              "days the alerts sent to each phone are kept for the app's history (30; 0: keep none)"),
        .init("PRINT_HISTORY_DAYS", .delivery,
              "days each ended print is kept one by one; older ones are rolled up into daily statistics (0: keep all)"),
        .init("SNAPSHOTS", .delivery, "a picture of the print in complete, failed, paused and printer-error alerts (true)"),
        .init("SNAPSHOT_TIMEOUT", .delivery, "seconds an alert waits for its picture at most (3; at most 10)"),
        .init("SNAPSHOT_LINK_HOURS", .delivery, "hours a picture and its signed link live (24)"),
        .init("SNAPSHOT_FOLDER_MB", .delivery, "megabytes the pictures may take under the state directory (100)"),
        .init("STATE_DIR", .state, "where the device store lives"),
        .init("LOG_FORMAT", .log, "json or text"),
        .init("LOG_LEVEL", .log, "trace, debug, info, notice, warning, error, critical"),
        .init("MILESTONES", .planner, live: true, list: true, "progress alerts, e.g. 25,50,75"),
        .init("LIVE_ACTIVITY_INTERVAL", .planner, live: true, "seconds between Live Activity updates"),
        .init("START_SETTLE", .planner, live: true, "seconds a start waits for the new print's file and values (5)"),
        .init("CANCEL_WINDOW", .planner, live: true, "seconds a failure waits for a cancel code that follows (10)"),
        .init("FLICKER_WINDOW", .planner, live: true, "seconds a print gone idle may come back as the same print (60)"),
        .init("REASON_WINDOW", .planner, live: true,
              "seconds a pause waits for its reason, and a new printer error for a pause it may belong to (3)"),
        .init("OFFLINE_WINDOW", .planner, live: true,
              "seconds a printer may report nothing mid-print before \"Printer Offline\" (60; 0: never)"),
        .init("BED_COOLED_BELOW", .planner, live: true,
              "°C the bed must cool below for \"Ready to Remove\" after a finish (35)"),
        .init("ALERT_LANGUAGE", .planner, live: true,
              "language of alerts for phones that do not say theirs: en, de, fr or es (en)"),
        .init("HEALTH_HA_GRACE", .delivery, "seconds HA may be away before /healthz is 503 (60)"),
    ]

    /// The names, in catalog order.
    public static let names: [String] = all.map(\.name)

    /// The settings that take several values.
    public static let listNames: Set<String> = Set(all.filter(\.takesList).map(\.name))

    /// Position in the catalog, for ordering problems the way check-config lists settings.
    static let position: [String: Int] = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
}
