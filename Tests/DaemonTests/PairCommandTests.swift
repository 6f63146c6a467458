import Foundation
import TestSupport
import Testing

/// `printbridge pair`: the server URL and API token for the app, as text
/// and as a QR code a real decoder (zbarimg) reads back.
@Suite struct PairCommandTests {
    @Test func showsAndWritesTheURLAndTokenAsAQRCode() throws {
        let directory = DaemonTests.temporaryDirectory("pair")
        let png = directory + "/pairing.png"
        let token = "pairing-test-token-0123456789abcdef"
        let result = try CommandRunner.run(
            ["pair", "--out", png],
            environment: ["API_TOKEN": token, "API_LISTEN": "127.0.0.1:3000", "PRINTBRIDGE_CONFIG": "", "API_TOKEN_FILE": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Server:    http://127.0.0.1:3000") && result.stdout.contains("API token: \(token)"))
        #expect(result.stdout.contains("▄") || result.stdout.contains("▀"), "the QR code in the terminal")
        let attributes = try FileManager.default.attributesOfItem(atPath: png)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "it holds the token")
        let decoded = try CommandRunner.execute("/usr/bin/zbarimg", ["--raw", "-q", png], directory: directory)
        let json = try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: String]
        #expect(json == ["url": "http://127.0.0.1:3000", "token": token])
    }

    @Test func withoutATokenThereIsNothingToPair() throws {
        let result = try CommandRunner.run(
            ["pair", "--out", DaemonTests.temporaryDirectory("pair") + "/p.png"],
            environment: ["API_TOKEN": "", "API_TOKEN_FILE": "", "PRINTBRIDGE_CONFIG": ""])
        #expect(result.status == 78)
        #expect(result.stderr.contains("API_TOKEN or API_TOKEN_FILE not set"))
    }
}
