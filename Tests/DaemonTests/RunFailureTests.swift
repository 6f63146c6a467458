import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run` with each of its parts made to fail: it says which part failed
/// and why, exits with the code that fits (78: something to fix in the
/// settings or the state directory), and the parts that did start are
/// stopped in order (the agent logs "stopped").
@Suite struct RunFailureTests {
    static let notACertificate: String = {
        let path = NSTemporaryDirectory() + "printbridge-not-a-certificate-\(UUID().uuidString.prefix(8)).pem"
        try? "this is not a certificate\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    func run(_ environment: [String: String], state: String? = nil) throws -> CommandRunner.Result {
        var environment = environment
        environment["STATE_DIR"] = state ?? DaemonTests.temporaryDirectory("state")
        environment["HA_TOKEN"] = environment["HA_TOKEN"] ?? DaemonTests.token
        environment["HA_URL"] = environment["HA_URL"] ?? "http://127.0.0.1:1"
        environment["API_TOKEN"] = DaemonTests.apiToken
        environment["API_LISTEN"] = environment["API_LISTEN"] ?? "off"
        return try CommandRunner.run(["run", "--dry-run"], environment: environment)
    }

    @Test func anAPIAddressInUseStopsRunWithItsReason() throws {
        // A port taken by another listener.
        let taken = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(taken) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(taken, $0, length) == 0 && getsockname(taken, $0, &length) == 0 }
        })
        try #require(listen(taken, 1) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let result = try run(["API_LISTEN": "127.0.0.1:\(port)"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("printbridge: the app's API: cannot listen on 127.0.0.1:\(port): Address already in use"),
                "\(result.stderr)")
    }

    @Test func aHomeAssistantCAFileThatIsNoCertificateStopsRun() throws {
        let result = try run(["HA_URL": "https://127.0.0.1:1", "HA_CA_FILE": Self.notACertificate])
        #expect(result.status == 78)
        #expect(result.stderr.contains(
            "printbridge: HA_CA_FILE \(Self.notACertificate) holds no certificate to trust Home Assistant's with"),
            "\(result.stderr)")
        // The group started: the agent was stopped in order, after the link failed.
        #expect(result.stdout.contains(#""message":"stopped""#))
    }

    @Test func anAPNsCAFileThatIsNoCertificateStopsRun() throws {
        let apns = try MockAPNsServer()
        var environment = apns.environment
        environment["APNS_CA_FILE"] = Self.notACertificate
        let result = try CommandRunner.run(["run"], environment: environment.merging([
            "STATE_DIR": DaemonTests.temporaryDirectory("state"), "HA_TOKEN": DaemonTests.token,
            "HA_URL": "http://127.0.0.1:1", "API_LISTEN": "off",
        ]) { $1 })
        #expect(result.status == 78)
        #expect(result.stderr.contains("cannot load the trusted certificates from \(Self.notACertificate)"), "\(result.stderr)")
    }

    @Test func aDamagedDeviceStoreStopsRunNamingTheFile() throws {
        let state = DaemonTests.temporaryDirectory("state")
        let file = state + "/printbridge.sqlite3"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: file))
        let result = try run([:], state: state)
        #expect(result.status == 78)
        #expect(result.stderr.contains(file), "\(result.stderr)")
    }
}
