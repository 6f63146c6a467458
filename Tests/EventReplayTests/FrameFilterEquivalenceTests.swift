import EventReplay
import PrintBridgeCore
import Testing

/// Skipping household events on raw bytes must never change a push: every
/// file replays to identical output with the frame filter on and off,
/// whatever the JSON layout.
@Suite struct FrameFilterEquivalenceTests {
    static let source = Repo.sampleEvents + "/two-printers-with-noise.jsonl"

    enum Layout: String, CaseIterable {
        case haOriginal, sortedKeys, spaced, coalesced
    }

    /// The source file rewritten in another layout, in a temporary file.
    static func file(in layout: Layout) throws -> String {
        let text = try #require(Repo.read(source))
        let lines = text.split(separator: "\n").map(String.init)
        var out: [String] = []
        switch layout {
        case .haOriginal:
            return source
        case .sortedKeys:
            out = try lines.map { JSONText.encode(try JSONParser.parse($0)) }
        case .spaced:
            out = try lines.map { spaced(try JSONParser.parse($0)) }
        case .coalesced:
            // Every three frames as one array, as HA's writer sends what it has queued; a frame that
            // already is an array (the capture's printer reports) gives its messages (HA never nests).
            let messages = lines.map { $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : $0 }.filter { !$0.isEmpty }
            for start in stride(from: 0, to: messages.count, by: 3) {
                out.append("[" + messages[start..<min(start + 3, messages.count)].joined(separator: ",") + "]")
            }
        }
        let path = Repo.temporaryPath("layout-\(layout.rawValue).jsonl")
        Repo.write(out.joined(separator: "\n") + "\n", to: path)
        return path
    }

    static func spaced(_ value: JSONValue) -> String {
        switch value {
        case .array(let elements): return "[ " + elements.map(spaced).joined(separator: ", ") + " ]"
        case .object(let members):
            return "{ " + members.sorted { $0.key > $1.key }.map { JSONText.quoted($0.key) + " : " + spaced($0.value) }
                .joined(separator: ", ") + " }"
        default: return JSONText.encode(value)
        }
    }

    @Test(arguments: Layout.allCases)
    func filteredAndFullParseGiveIdenticalPushes(layout: Layout) throws {
        let path = try Self.file(in: layout)
        let filtered = replay([path])
        let full = replay([path], frameFilter: false)
        #expect(full.summary.reading.filteredFrames == 0)
        expectSame(filtered.lines, full.lines, "\(layout)")
        #expect(filtered.lines.count > 10)
        #expect(filtered.diagnostics.map(\.line) == full.diagnostics.map(\.line))
        if layout != .coalesced {
            #expect(filtered.summary.reading.filteredFrames > filtered.summary.lines / 2)
        }
    }

    @Test func everySampleIsUnchangedByTheFilter() {
        for name in Repo.sampleFiles() {
            let path = Repo.sampleEvents + "/" + name
            expectSame(replay([path]).lines, replay([path], frameFilter: false).lines, name)
        }
    }
}

/// Records the first push that differs, not two whole replays.
func expectSame(_ filtered: [String], _ full: [String], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(filtered.count == full.count, "\(label): \(filtered.count) pushes filtered vs \(full.count) parsed", sourceLocation: sourceLocation)
    if let index = zip(filtered, full).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
        Issue.record("\(label): push \(index + 1) differs\nfiltered: \(filtered[index])\n  parsed: \(full[index])", sourceLocation: sourceLocation)
    }
}
