/// A QR code (ISO/IEC 18004) for short text: byte mode, error correction
/// level M, versions 1 to 10 (up to 213 bytes), the mask with the lowest
/// penalty. Enough for a pairing payload (server URL and API token): the
/// standard's algorithm, checked against a real decoder (zbarimg) in the
/// tests. Debian's libqrencode would do the same job; moving to it is
/// issue 33's (weighed there by binary size and memory).
public struct QRCode: Sendable {
    /// Modules per side.
    public let size: Int
    public let version: Int
    /// Row-major, true = dark.
    public private(set) var modules: [Bool]
    private var isFunction: [Bool]

    public struct TooLong: Error, CustomStringConvertible {
        public var bytes: Int
        public var description: String { "\(bytes) bytes is more than a version 10 QR code holds at level M (213)" }
    }

    /// Level M: error-correction codewords per block, and the blocks' data lengths, by version.
    private static let levelM: [(ecPerBlock: Int, blocks: [Int])] = [
        (10, [16]), (16, [28]), (26, [44]), (18, [32, 32]), (24, [43, 43]), (16, [27, 27, 27, 27]),
        (18, [31, 31, 31, 31]), (22, [38, 38, 39, 39]), (22, [36, 36, 36, 37, 37]), (26, [43, 43, 43, 43, 44]),
    ]
    private static let alignment: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]

    public init(text: String) throws(TooLong) {
        let bytes = Array(text.utf8)
        guard let version = (1...10).first(where: { Self.capacityBits($0) >= Self.payloadBits(bytes.count, version: $0) })
        else { throw TooLong(bytes: bytes.count) }
        self.version = version
        size = 4 * version + 17
        modules = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
        drawFunctionPatterns()
        place(Self.codewords(bytes, version: version))
        var best = 0
        var lowest = Int.max
        for mask in 0..<8 {
            applyMask(mask)
            drawFormat(mask: mask)
            let score = penalty()
            if score < lowest {
                lowest = score
                best = mask
            }
            applyMask(mask)  // XOR again: undone
        }
        applyMask(best)
        drawFormat(mask: best)
    }

    public subscript(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }

    // MARK: - Data

    private static func capacityBits(_ version: Int) -> Int { levelM[version - 1].blocks.reduce(0, +) * 8 }

    private static func payloadBits(_ count: Int, version: Int) -> Int { 4 + (version < 10 ? 8 : 16) + count * 8 }

    /// Data codewords (mode, count, bytes, terminator, padding) and their
    /// Reed–Solomon codewords, interleaved as the standard places them.
    static func codewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, version < 10 ? 8 : 16)
        for byte in bytes { append(Int(byte), 8) }
        let capacity = capacityBits(version)
        append(0, min(4, capacity - bits.count))
        while bits.count % 8 != 0 { bits.append(false) }
        var data: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits[start + $1] ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while data.count * 8 < capacity {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        let (ecCount, lengths) = levelM[version - 1]
        var blocks: [[UInt8]] = []
        var offset = 0
        for length in lengths {
            blocks.append(Array(data[offset..<(offset + length)]))
            offset += length
        }
        let ec = blocks.map { ReedSolomon.remainder($0, degree: ecCount) }
        var result: [UInt8] = []
        for index in 0..<(lengths.max() ?? 0) {
            for block in blocks where index < block.count { result.append(block[index]) }
        }
        for index in 0..<ecCount {
            for block in ec { result.append(block[index]) }
        }
        return result
    }

    // MARK: - Modules

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    private mutating func drawFunctionPatterns() {
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx, y = cy + dy
                    guard x >= 0, y >= 0, x < size, y < size else { continue }
                    let distance = max(abs(dx), abs(dy))
                    set(x, y, distance != 2 && distance != 4)
                }
            }
        }
        let positions = Self.alignment[version - 1]
        for (i, cy) in positions.enumerated() {
            for (j, cx) in positions.enumerated() {
                let corner = (i == 0 && j == 0) || (i == 0 && j == positions.count - 1) || (i == positions.count - 1 && j == 0)
                if corner { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormat(mask: 0)  // reserves the format areas; drawn for real later
        if version >= 7 {
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = size - 11 + i % 3, b = i / 3
                set(a, b, dark)
                set(b, a, dark)
            }
        }
    }

    /// Level M is 00; the 15 bits carry a BCH code and the standard's XOR mask.
    private mutating func drawFormat(mask: Int) {
        let data = 0b00 << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)  // the dark module
    }

    /// The codewords' bits in the standard's zigzag, two columns at a time from the right.
    private mutating func place(_ codewords: [UInt8]) {
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !isFunction[y * size + x], index < codewords.count * 8 else { continue }
                    modules[y * size + x] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    private mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { modules[y * size + x].toggle() }
            }
        }
    }

    /// The standard's four penalty rules: runs, 2×2 blocks, finder look-alikes, dark balance.
    private func penalty() -> Int {
        var score = 0
        let finderLike: [[Bool]] = [
            [true, false, true, true, true, false, true, false, false, false, false],
            [false, false, false, false, true, false, true, true, true, false, true],
        ]
        for horizontal in [true, false] {
            for a in 0..<size {
                var line: [Bool] = []
                for b in 0..<size { line.append(horizontal ? self[b, a] : self[a, b]) }
                var run = 1
                for b in 1..<size {
                    if line[b] == line[b - 1] {
                        run += 1
                    } else {
                        if run >= 5 { score += 3 + run - 5 }
                        run = 1
                    }
                }
                if run >= 5 { score += 3 + run - 5 }
                for start in 0...(size - 11) {
                    for pattern in finderLike where Array(line[start..<(start + 11)]) == pattern { score += 40 }
                }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = self[x, y]
                if colour == self[x + 1, y], colour == self[x, y + 1], colour == self[x + 1, y + 1] { score += 3 }
            }
        }
        let dark = modules.filter { $0 }.count
        let total = size * size
        let k = (abs(dark * 20 - total * 10) + total - 1) / total - 1
        score += max(0, k) * 10
        return score
    }
}

/// Reed–Solomon over GF(256) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1.
enum ReedSolomon {
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var result = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            result = (result << 1) ^ ((result >> 7) * 0x11D)
            if (b >> UInt8(bit)) & 1 == 1 { result ^= Int(a) }
        }
        return UInt8(result & 0xFF)
    }

    /// The generator polynomial (x − α⁰)…(x − α^(degree−1)), leading 1 left out.
    static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return coefficients
    }

    static func remainder(_ data: [UInt8], degree: Int) -> [UInt8] {
        let divisor = generator(degree: degree)
        var result = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for i in 0..<degree { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }
}
