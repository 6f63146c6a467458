import ControlAPI
import DeviceStore
import Foundation
import FoundationNetworking
import Testing

/// API_TRUSTED_NETWORKS: the unmodified seed app sends no Authorization
/// header, so a home network can be trusted explicitly; everyone else still
/// needs the API token.
@Suite struct TrustedNetworksTests {
    @Test func networksAndAddresses() throws {
        let networks = try TrustedNetworks(parsing: "192.168.1.0/24, fd00::/8 10.0.0.7")
        func contains(_ text: String) -> Bool { TrustedNetworks.address(text).map(networks.contains) ?? false }
        #expect(contains("192.168.1.42") && contains("::ffff:192.168.1.42"), "an IPv4 client on a dual-stack socket too")
        #expect(!contains("192.168.2.1"))
        #expect(contains("fd12:3456::1") && !contains("fe80::1"))
        #expect(contains("10.0.0.7") && !contains("10.0.0.8"), "a bare address is one host")
        #expect(try TrustedNetworks(parsing: "0.0.0.0/0").contains(TrustedNetworks.address("8.8.8.8")!))
        #expect(TrustedNetworks().isEmpty && !TrustedNetworks().contains(TrustedNetworks.address("127.0.0.1")!))
    }

    @Test(arguments: ["192.168.1.0/33", "192.168.1/24", "home", "::1/129", "10.0.0.0/x"])
    func badNetworksAreClearErrors(text: String) {
        #expect(throws: TrustedNetworks.ParseError.self) { try TrustedNetworks(parsing: text) }
    }

    /// A real request over 127.0.0.1, with no Authorization header.
    func statusWithoutToken(trusting text: String) async throws -> Int {
        let directory = NSTemporaryDirectory() + "printbridge-trust-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let api = ControlAPI(
            store: try DeviceStore(directory: directory), apiToken: "secret-token-0123456789",
            apns: .init(configured: true, bundleID: "b", production: false),
            trustedNetworks: try TrustedNetworks(parsing: text))
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { api.handle($0) }
        try server.start()
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/api/config/apns/status")!
        let (_, response) = try await URLSession.shared.data(from: url)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func aTrustedClientNeedsNoTokenAndOthersDo() async throws {
        #expect(try await statusWithoutToken(trusting: "127.0.0.0/8") == 200)
        #expect(try await statusWithoutToken(trusting: "192.168.1.0/24") == 401)
    }
}
