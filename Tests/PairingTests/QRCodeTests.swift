import Foundation
import Pairing
import TestSupport
import Testing

/// The QR codes `printbridge pair` shows are read by a real decoder
/// (zbarimg, Debian's zbar-tools), at every version the encoder makes.
@Suite struct QRCodeTests {
    static func decode(_ png: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "printbridge-qr-\(UUID().uuidString.prefix(8)).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(png).write(to: URL(fileURLWithPath: path))
        let result = try CommandRunner.execute("/usr/bin/zbarimg", ["--raw", "-q", path], directory: NSTemporaryDirectory())
        #expect(result.status == 0, "zbarimg: \(result.stderr)")
        return result.stdout.hasSuffix("\n") ? String(result.stdout.dropLast()) : result.stdout
    }

    @Test(arguments: [1, 9, 30, 60, 90, 120, 150, 180, 213, 251, 287, 331])
    func aRealDecoderReadsWhatWasEncoded(length: Int) throws {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz{}\":/.,-")
        var random = SplitMix(seed: UInt64(length))
        let text = String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        let code = try QRCode(text: text)
        #expect(code.size == 4 * code.version + 17)
        #expect(try Self.decode(PNGImage.encode(code)) == text)
    }

    @Test func aPairingPayloadFitsAndReadsBack() throws {
        let payload = #"{"url":"http://192.168.1.20:3000","token":"\#(String(repeating: "a1b2", count: 16))"}"#
        let code = try QRCode(text: payload)
        #expect(code.version <= 10)
        #expect(try Self.decode(PNGImage.encode(code)) == payload)
    }

    /// Both addresses, the code and the certificate's fingerprint, as the
    /// status page's "Pair a phone" makes it: still one that fits an
    /// 80-column terminal with its quiet zone.
    @Test func aPayloadWithTheOutsideAddressFitsATerminal() throws {
        let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
        let payload = #"{"url":"https://192.168.1.20:3000","outsideUrl":"https://printbridge.example-home.net:8443","#
            + #""code":"K7QM-2XRT","fingerprint":"\#(fingerprint)"}"#
        let code = try QRCode(text: payload)
        #expect(code.version > 10 && code.size + 8 <= 80, "version \(code.version)")
        #expect(TerminalQR.render(code).split(separator: "\n").allSatisfy { $0.count <= 80 })
        #expect(try Self.decode(PNGImage.encode(code)) == payload)
    }

    @Test func tooLongIsAClearError() {
        #expect(throws: QRCode.TooLong.self) { try QRCode(text: String(repeating: "x", count: 332)) }
    }
}
