import EventReplay
import PrintBridgeCore
import TestSupport
import Testing

/// Replay must survive any damage to its input: every line of a real
/// recording mutated many ways (bytes flipped, cut, duplicated, spliced)
/// goes through the whole pipeline without a crash, and every rejected line
/// is reported.
@Suite struct DamagedInputTests {
    @Test func mutatedRecordingsNeverCrashAndEveryRejectIsReported() throws {
        let source = try #require(Repo.read(Repo.sampleEvents + "/two-printers-with-noise.jsonl"))
        let lines = source.split(separator: "\n").map { Array($0.utf8) }
        var rng = SplitMix(seed: 20_261_122)
        var mutated: [[UInt8]] = []
        let interesting: [UInt8] = Array("{}[]\":,\\0123456789-.eE \u{7F}".utf8) + [0x00, 0xC3, 0xFF, 0x0D]
        for _ in 0..<4000 {
            var line = lines[Int.random(in: 0..<lines.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard !line.isEmpty else { break }
                let at = Int.random(in: 0..<line.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: line[at] = interesting.randomElement(using: &rng)!
                case 1: line.removeSubrange(at...)
                case 2: line.insert(interesting.randomElement(using: &rng)!, at: at)
                case 3: line.removeSubrange(at..<min(line.count, at + Int.random(in: 1...40, using: &rng)))
                default:
                    let other = lines.randomElement(using: &rng)!
                    line = Array(line[..<at]) + other[min(at, other.count - 1)...]
                }
            }
            mutated.append(line.filter { $0 != 0x0A })
        }
        let path = Repo.temporaryPath("damaged.jsonl")
        Repo.write(mutated.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n"), to: path)
        let result = replay([path])
        #expect(result.summary.lines == 4000)
        #expect(result.summary.badLines > 100, "the mutations really do damage lines")
        #expect(result.diagnostics.filter { $0.message.hasPrefix("skipped") }.count == result.summary.badLines)
        for push in result.pushes { #expect(push.payload.count <= 4096) }
    }
}
