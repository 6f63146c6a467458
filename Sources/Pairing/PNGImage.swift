import CZlib

/// A black-and-white PNG of a QR code: 8-bit greyscale, compressed with
/// zlib (which the agent loads anyway), each chunk checked with zlib's CRC-32.
public enum PNGImage {
    /// `scale` pixels per module and a quiet zone of `border` modules (the standard asks for 4).
    public static func encode(_ code: QRCode, scale: Int = 8, border: Int = 4) -> [UInt8] {
        let side = (code.size + 2 * border) * scale
        var raw: [UInt8] = []
        raw.reserveCapacity(side * (side + 1))
        for y in 0..<side {
            raw.append(0)  // filter: none
            for x in 0..<side {
                raw.append(code[x / scale - border, y / scale - border] ? 0x00 : 0xFF)
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", bigEndian(UInt32(side)) + bigEndian(UInt32(side)) + [8, 0, 0, 0, 0], into: &png)
        chunk("IDAT", deflated(raw), into: &png)
        chunk("IEND", [], into: &png)
        return png
    }

    private static func chunk(_ type: String, _ data: [UInt8], into png: inout [UInt8]) {
        let typed = Array(type.utf8) + data
        let crc = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        png += bigEndian(UInt32(data.count)) + typed + bigEndian(crc)
    }

    /// A zlib stream (what PNG's IDAT holds) at zlib's best compression.
    private static func deflated(_ data: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = out.withUnsafeMutableBufferPointer { target in
            data.withUnsafeBufferPointer { compress2(target.baseAddress, &length, $0.baseAddress, uLong($0.count), Z_BEST_COMPRESSION) }
        }
        // compressBound is the worst case: compress2 cannot run out of room or memory for a few hundred KB.
        precondition(status == Z_OK, "zlib compress2: \(status)")
        return Array(out.prefix(Int(length)))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
