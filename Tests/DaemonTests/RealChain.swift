import Foundation
import TestSupport

/// A real-printer chain (RealPrinters/*_chain.py: the printers' own
/// software in front of a real Home Assistant) running: commands go to its
/// stdin, what happened is read from its --stats file, HA's token from the
/// file it writes. The tests' own chains add their commands.
class RealChain {
    let process: MockProcess
    let statsFile: String
    let token: String
    var port: Int { process.port }

    /// Starts `RealPrinters/<script>` with HA's Python and waits for HA's port.
    init(script: String, python: String, filePath: String = #filePath) throws {
        let id = UUID().uuidString.prefix(8)
        let tokenFile = NSTemporaryDirectory() + "printbridge-chain-token-\(id)"
        statsFile = NSTemporaryDirectory() + "printbridge-chain-stats-\(id).json"
        let path = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("RealPrinters/" + script).path
        process = try MockProcess(script: path, arguments: ["--token-file", tokenFile, "--stats", statsFile], python: python)
        token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try? FileManager.default.removeItem(atPath: tokenFile)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: statsFile)
        try? FileManager.default.removeItem(atPath: statsFile + ".tmp")
    }

    /// The stats file as it is now (written whole by the chain).
    var stats: [String: Any] {
        FileManager.default.contents(atPath: statsFile).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }

    func send(_ command: String) { process.send(command) }
}
