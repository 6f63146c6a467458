// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for PrintBridge's input paths. Built and run by
// scripts/fuzz.sh (with -sanitize=fuzzer,address). Each main.swift hands its
// target function to libFuzzer's driver (LLVMFuzzerRunDriver): SwiftPM
// renames an executable's main on Linux, so libFuzzer's own main (and
// -parse-as-library) cannot be used.
let package = Package(
    name: "PrintBridgeFuzz",
    dependencies: [
        .package(name: "PrintBridge", path: ".."),
        // Yams' serializer writes the files the round trip reads back.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .target(name: "CLibFuzzer"),
        // HA frames: read or refused, subscribe_entities' diffs held to a model, and the pushes they make.
        .executableTarget(name: "FuzzHAFrames", dependencies: [
            "CLibFuzzer", .product(name: "PrintBridgeCore", package: "PrintBridge"),
        ]),
        // The app's API: the HTTP request parser, read whole and in pieces, and the routes;
        // about one input in 32 also through a real server over TLS (issue 34).
        .executableTarget(name: "FuzzHTTP", dependencies: [
            "CLibFuzzer",
            .product(name: "ControlAPI", package: "PrintBridge"), .product(name: "DeviceStore", package: "PrintBridge"),
            .product(name: "PrintBridgeCore", package: "PrintBridge"), .product(name: "COpenSSL", package: "PrintBridge"),
        ]),
        // The settings file's YAML reader (libyaml), with LF, CRLF and a byte-order mark, and re-emitted by Yams' serializer.
        .executableTarget(name: "FuzzSettings", dependencies: [
            "CLibFuzzer", .product(name: "PrintBridgeCore", package: "PrintBridge"),
            .product(name: "SettingsYAML", package: "PrintBridge"), .product(name: "Yams", package: "Yams"),
        ]),
        // ISO 8601 timestamps: parse, format, parse again.
        .executableTarget(name: "FuzzISO8601", dependencies: ["CLibFuzzer", .product(name: "PrintBridgeCore", package: "PrintBridge")]),
        // Time zone files (TZif) and their footers' POSIX TZ rules: refused, or offsets within ±26 h that agree with the changes.
        .executableTarget(name: "FuzzTZif", dependencies: ["CLibFuzzer", .product(name: "TimeZones", package: "PrintBridge")]),
    ]
)
