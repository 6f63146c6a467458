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
        let environment = [
            "API_TOKEN": token, "API_LISTEN": "127.0.0.1:3000", "PRINTBRIDGE_CONFIG": "", "API_TOKEN_FILE": "",
            "STATE_DIR": directory,
        ]
        let result = try CommandRunner.run(["pair", "--out", png, "--admin-token"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Server:    http://127.0.0.1:3000") && result.stdout.contains("API token: \(token)"))
        let code = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Pairing code: ") }?
            .dropFirst("Pairing code: ".count).prefix(9))
        #expect(result.stdout.contains("▄") || result.stdout.contains("▀"), "the QR code in the terminal")
        let attributes = try FileManager.default.attributesOfItem(atPath: png)
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "it holds the token")
        let decoded = try CommandRunner.execute("/usr/bin/zbarimg", ["--raw", "-q", png], directory: directory)
        let json = try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: String]
        #expect(json == ["url": "http://127.0.0.1:3000", "code": String(code), "token": token])
        // Without --admin-token the code holds no token: the phone trades the code for its own credential.
        let plain = try CommandRunner.run(["pair", "--out", png], environment: environment)
        #expect(plain.status == 0 && !plain.stdout.contains(token), "\(plain.stderr)")
        let second = try CommandRunner.execute("/usr/bin/zbarimg", ["--raw", "-q", png], directory: directory)
        let keys = (try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: String])?.keys.sorted()
        #expect(keys == ["code", "url"])
    }

    @Test func withoutATokenThereIsNothingToPair() throws {
        let result = try CommandRunner.run(
            ["pair", "--out", DaemonTests.temporaryDirectory("pair") + "/p.png"],
            environment: ["API_TOKEN": "", "API_TOKEN_FILE": "", "PRINTBRIDGE_CONFIG": ""])
        #expect(result.status == 78)
        #expect(result.stderr.contains("API_TOKEN or API_TOKEN_FILE not set"))
    }
}
