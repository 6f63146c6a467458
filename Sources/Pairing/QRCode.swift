import CQRencode

/// A QR code for short text, from Debian's libqrencode: byte mode, error
/// correction level M, the smallest version that holds the text up to
/// version 13 (331 bytes, 69 modules: with its quiet zone 77 columns, so it
/// still fits an 80-column terminal; version 10, 213 bytes, before a QR
/// code also held the address from outside), the mask libqrencode's penalty
/// rules choose. Checked against a real decoder (zbarimg) in the tests.
public struct QRCode: Sendable {
    /// Modules per side.
    public let size: Int
    public let version: Int
    /// Row-major, true = dark.
    public let modules: [Bool]

    /// The largest version made.
    public static let maximumVersion = 13

    public struct TooLong: Error, CustomStringConvertible {
        public var bytes: Int
        public var description: String { "\(bytes) bytes is more than a version 13 QR code holds at level M (331)" }
    }

    public init(text: String) throws(TooLong) {
        let bytes = Array(text.utf8)
        // Version 0: the smallest that holds the data (libqrencode's QRcode_encodeData).
        guard let code = bytes.withUnsafeBufferPointer({ QRcode_encodeData(Int32($0.count), $0.baseAddress, 0, QR_ECLEVEL_M) })
        else { throw TooLong(bytes: bytes.count) }
        defer { QRcode_free(code) }
        guard Int(code.pointee.version) <= Self.maximumVersion else { throw TooLong(bytes: bytes.count) }
        version = Int(code.pointee.version)
        size = Int(code.pointee.width)
        // Each module is a byte whose lowest bit is 1 for dark (qrencode.h, `QRcode`).
        modules = (0..<(size * size)).map { code.pointee.data[$0] & 1 == 1 }
    }

    public subscript(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }
}
