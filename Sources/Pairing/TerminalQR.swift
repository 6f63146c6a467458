/// A QR code drawn with Unicode half blocks, two module rows per line, for
/// a terminal with light text on a dark background: light modules are
/// drawn, dark ones left as the background, with the quiet zone around.
public enum TerminalQR {
    public static func render(_ code: QRCode, border: Int = 4) -> String {
        var lines: [String] = []
        let range = -border..<(code.size + border)
        for y in stride(from: -border, to: code.size + border, by: 2) {
            var line = ""
            for x in range {
                let top = !code[x, y], bottom = y + 1 < code.size + border && !code[x, y + 1]
                line += top ? (bottom ? "█" : "▀") : (bottom ? "▄" : " ")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
