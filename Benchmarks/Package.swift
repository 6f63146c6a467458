// swift-tools-version:6.0
import PackageDescription

/// The benchmarks' own programs, outside the product's package graph: built
/// and run by scripts/bench/ (apns_benchmark.py, daemon_benchmark.py,
/// statistics_benchmark.py), never
/// installed. The release link flags are the product's (../Package.swift),
/// so both are built the way `printbridge` is: without them the APNs
/// driver's peak RSS carried ~1 MB of relocations and exported-symbol
/// tables the deployed agent does not have.
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
        .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "PrintBridgeBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "PrintBridge", path: "..")],
    targets: [
        // The APNs throughput benchmark's client: APNsSender against a local
        // HTTP/2 server (scripts/bench/apns_benchmark.py).
        .executableTarget(name: "APNsBenchmark", dependencies: [
            .product(name: "APNsClient", package: "PrintBridge"), .product(name: "PrintBridgeCore", package: "PrintBridge"),
            .product(name: "AgentSettings", package: "PrintBridge"),
        ], linkerSettings: releaseLinking),
        // The daemon benchmark's footprint floor: the C libraries alone
        // (scripts/bench/daemon_benchmark.py).
        .executableTarget(
            name: "FootprintFloor", dependencies: [.product(name: "SystemLibraries", package: "PrintBridge")],
            linkerSettings: releaseLinking),
        // The statistics' scale benchmark: ten years of a busy farm in the
        // device store, the API's queries on it timed and explained
        // (scripts/bench/statistics_benchmark.py). CSQLite comes with the
        // DeviceStore product (its plain connection: plans, the floor).
        .executableTarget(name: "StatisticsBenchmark", dependencies: [
            .product(name: "DeviceStore", package: "PrintBridge"), .product(name: "PrintBridgeCore", package: "PrintBridge"),
        ], linkerSettings: releaseLinking),
        // The agent's metrics: a counter moved, /metrics rendered
        // (docs/BEHAVIOUR.md, "Health and metrics").
        .executableTarget(name: "MetricsBenchmark", dependencies: [
            .product(name: "ControlAPI", package: "PrintBridge"), .product(name: "PrintBridgeCore", package: "PrintBridge"),
        ], linkerSettings: releaseLinking),
        // PrintBridge's JSON reader beside FoundationEssentials' JSONDecoder
        // (docs/BEHAVIOUR.md: why a JSON reader of our own).
        .executableTarget(name: "JSONComparison", dependencies: [
            .product(name: "PrintBridgeCore", package: "PrintBridge"),
        ], linkerSettings: releaseLinking),
        // Instructions per event on the agent's own path, under callgrind
        // (scripts/bench/path_instructions.py).
        .executableTarget(name: "PathInstructions", dependencies: [
            .product(name: "PrintBridgeCore", package: "PrintBridge"),
            .product(name: "APNsClient", package: "PrintBridge"),
        ], linkerSettings: releaseLinking),
    ]
)
