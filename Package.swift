// swift-tools-version:6.0
import PackageDescription

/// Release builds on Linux link with lld and pack the ~40,000 relative
/// relocations of the static Swift runtime into a few KB (DT_RELR, so the
/// binary needs glibc >= 2.36: Debian 12 and later): the loader no longer
/// reads ~1 MB of relocation entries at start-up. The toolchain's
/// static-stdlib link arguments also export every public symbol of ours and
/// of the packages (~3,500 names, 320 KB of symbol tables the loader searches
/// and the kernel maps); nothing looks them up, so they are not exported.
/// Nothing here depends on the code's layout, the toolchain's version or the
/// architecture.
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
        .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "PrintBridge",
    // iOS: the app imports PrinterActivityContent (ActivityKit's Live
    // Activities need iOS 16.1); the agent itself builds for Linux and macOS.
    platforms: [.macOS(.v14), .iOS("16.1")],
    products: [
        .executable(name: "printbridge", targets: ["printbridge"]),
        .library(name: "PrinterActivityContent", targets: ["PrinterActivityContent"]),
        .library(name: "PrintBridgeCore", targets: ["PrintBridgeCore"]),
        // For Fuzz/ (libFuzzer targets, a package of their own).
        .library(name: "ControlAPI", targets: ["ControlAPI"]),
        .library(name: "DeviceStore", targets: ["DeviceStore"]),
        .library(name: "TimeZones", targets: ["TimeZones"]),
        // For Benchmarks/ (a package of its own): the APNs client, the settings and the C libraries.
        .library(name: "APNsClient", targets: ["APNsClient"]),
        .library(name: "AgentSettings", targets: ["AgentSettings"]),
        // For Fuzz/ (FuzzSettings): the settings file's YAML reader.
        .library(name: "SettingsYAML", targets: ["SettingsYAML"]),
        .library(name: "SystemLibraries", targets: ["SystemLibraries"]),
        // For the fuzz package's TLS client (Fuzz/Sources/FuzzHTTP).
        .library(name: "COpenSSL", targets: ["COpenSSL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The agent's Service shape, signals and graceful shutdown (ServiceGroup).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `merge` and `chain`: the agent's inputs as one demand-driven stream.
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        // Deque: the APNs client's requests waiting for a stream.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // /metrics: the agent's metrics, and any library's, through the ecosystem's
        // API (swift-metrics), kept and rendered by swift-prometheus.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Tests only: the settings file's YAML re-emitted by another writer (SettingsFileTests; FuzzSettings too).
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // System C libraries, one target each (Debian -dev packages).
        .systemLibrary(
            name: "CLibWebSockets", pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // `printbridge pair`: the QR code and its PNG.
        .systemLibrary(
            name: "CQRencode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // The settings file's YAML.
        .systemLibrary(
            name: "CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),

        // glibc's heap trim, eventfd and thread names, which Swift's Glibc module leaves out.
        .systemLibrary(name: "CGlibcExtras"),

        // UTC offsets of IANA zones for the statistics' local days: ZoneRules
        // over the system's tzdata, read by a TZif parser of our own (RFC 8536,
        // with the files' POSIX footer rules for the years after their
        // transitions). No C and no ICU (FoundationEssentials' TimeZone is nil
        // without it); why not libcctz: the top of Sources/TimeZones/ZoneRules.swift.
        .target(name: "TimeZones"),

        // Starting the agent's own threads, named and checked.
        .target(
            name: "NamedThreads",
            dependencies: ["CGlibcExtras"]),

        // The Live Activity types shared with the iOS app.
        .target(name: "PrinterActivityContent"),

        // Pure core: HA message model, matching, cache, planning, payloads.
        // No I/O and no C.
        .target(
            name: "PrintBridgeCore", dependencies: ["PrinterActivityContent", "TimeZones"],
            // The alert texts, one file per language, compiled in.
            resources: ["en", "de", "fr", "es"].map { .embedInCode("Catalog/\($0).json") }),

        // One TLS engine (OpenSSL) for every connection that needs one: a
        // context a side, a connection that owns its SSL and keeps OpenSSL's
        // rules (the error queue, close_notify) once. The APNs client's and
        // the app's API server's. (The HA link's TLS is libwebsockets'.)
        .target(name: "TLSEngine", dependencies: ["COpenSSL"]),

        // APNs delivery: ES256 provider tokens (OpenSSL), HTTP/2 framing (nghttp2) over TLSEngine.
        .target(
            name: "APNsClient",
            dependencies: [
                "PrintBridgeCore", "NamedThreads", "CNGHTTP2", "COpenSSL", "TLSEngine", "CGlibcExtras",
                // Requests waiting for a stream, oldest first.
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),

        // The Home Assistant connection: libwebsockets' ws/wss client driven
        // by HASession (COpenSSL: HA_CA_FILE checked before the start).
        .target(
            name: "HomeAssistantLink",
            dependencies: [
                "PrintBridgeCore", "NamedThreads", "CLibWebSockets", "COpenSSL",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),

        // The device store: SQLite (WAL), versioned schema.
        .target(name: "DeviceStore", dependencies: ["PrintBridgeCore", "CSQLite", "NamedThreads", "CGlibcExtras"]),

        // The app's HTTP API: a small HTTP/1.1 server and the seed's routes.
        .target(
            name: "ControlAPI",
            dependencies: [
                "PrintBridgeCore", "DeviceStore", "NamedThreads", "COpenSSL", "TLSEngine", "TimeZones",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),

        // Structured logs: JSON lines (or text for people) through swift-log.
        .target(
            name: "PrintBridgeLogging",
            dependencies: ["PrintBridgeCore", .product(name: "Logging", package: "swift-log")]),

        // The agent: HA messages, device changes, settings, APNs answers and
        // deadlines merged into one stream; the pipeline, the outbox and the store.
        .target(
            name: "Agent",
            dependencies: [
                "PrintBridgeCore", "HomeAssistantLink", "DeviceStore", "ControlAPI", "NamedThreads",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]),

        // The settings file read as YAML (libyaml): settings' texts with
        // where each is, and the `printers:` block through PrinterMap. Apart
        // from PrintBridgeCore, which stays free of C; apart from
        // AgentSettings, so that the fuzz target and the core's tests take
        // only this. Why not Yams: the top of YAMLComposer.swift.
        .target(name: "SettingsYAML", dependencies: ["PrintBridgeCore", "CYAML"]),

        // Settings: one typed value from the command line, environment, settings file and systemd credentials.
        .target(
            name: "AgentSettings",
            dependencies: [
                "PrintBridgeCore", "SettingsYAML", "HomeAssistantLink", "ControlAPI", "APNsClient", "PrintBridgeLogging",
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Pictures of the print for the alerts: taken through HA, kept in a
        // bounded folder, served by signed expiring links.
        .target(name: "Snapshots", dependencies: ["PrintBridgeCore", "COpenSSL"]),

        // Pairing the app: the server URL and API token as a QR code (terminal and PNG).
        .target(name: "Pairing", dependencies: ["CQRencode", "CZlib"]),

        // Recorded-event files: reading, replaying through the core, printing pushes.
        .target(name: "EventReplay", dependencies: ["PrintBridgeCore"]),

        // Thin Swift views of the C libraries (versions, feature probes).
        .target(
            name: "SystemLibraries",
            dependencies: ["CLibWebSockets", "CNGHTTP2", "COpenSSL", "CSQLite"]),

        .executableTarget(
            name: "printbridge",
            dependencies: [
                "PrintBridgeCore", "Agent", "AgentSettings", "EventReplay", "Snapshots", "SystemLibraries", "APNsClient", "HomeAssistantLink", "DeviceStore", "ControlAPI", "PrintBridgeLogging", "Pairing", "NamedThreads", "CGlibcExtras",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            linkerSettings: releaseLinking),

        // Test helpers shared by test targets (running the built binary).
        .target(name: "TestSupport", dependencies: ["APNsClient"], path: "Tests/TestSupport"),
        .testTarget(
            name: "PrintBridgeCoreTests",
            // SettingsYAML: the `printers:` block's tests read it from YAML as the agent does.
            dependencies: ["PrintBridgeCore", "PrinterActivityContent", "SettingsYAML"]),
        .testTarget(
            name: "EventReplayTests",
            dependencies: ["EventReplay", "PrintBridgeCore", "PrinterActivityContent", "TestSupport"]),
        .testTarget(
            name: "APNsClientTests",
            dependencies: ["APNsClient", "PrintBridgeCore", "PrinterActivityContent", "TestSupport"],
            exclude: ["MockAPNs"]),
        .testTarget(
            name: "DaemonTests",
            dependencies: ["TestSupport", "APNsClient"],
            exclude: ["MockHA", "RealHA", "RealPrinters", "Fixtures"]),
        .executableTarget(name: "StoreWriter", dependencies: ["DeviceStore", "PrintBridgeCore"], path: "Tests/StoreWriter"),
        .executableTarget(name: "LinkFootprint", dependencies: ["HomeAssistantLink", "PrintBridgeCore"], path: "Tests/LinkFootprint"),
        .testTarget(
            name: "DeviceStoreTests",
            dependencies: ["DeviceStore", "PrintBridgeCore", "CSQLite", "TestSupport"]),
        .testTarget(
            name: "ControlAPITests",
            dependencies: [
                "ControlAPI", "COpenSSL", "DeviceStore", "PrintBridgeCore", "Snapshots", "TestSupport",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]),
        .testTarget(
            name: "DeployTests",
            dependencies: ["TestSupport"]),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "TestSupport"]),
        .testTarget(name: "SnapshotsTests", dependencies: ["Snapshots", "PrintBridgeCore"]),
        .testTarget(
            name: "HomeAssistantLinkTests",
            dependencies: ["HomeAssistantLink", "PrintBridgeCore", "TestSupport"]),
        .testTarget(
            name: "AgentTests",
            dependencies: [
                "Agent", "PrintBridgeCore", "HomeAssistantLink", "DeviceStore", "ControlAPI", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "AgentSettingsTests",
            dependencies: [
                "AgentSettings", "SettingsYAML", "PrintBridgeCore", "HomeAssistantLink", "APNsClient",
                .product(name: "Yams", package: "Yams"),
            ]),
        .testTarget(
            name: "SystemLibrariesTests",
            dependencies: ["SystemLibraries", "NamedThreads"]),
        .testTarget(name: "TimeZoneRulesTests", dependencies: ["TimeZones"]),
    ]
)
