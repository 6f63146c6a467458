import EventReplay
import PrintBridgeCore
import Testing

/// `replay` reads what `record` now writes (a `subscribe_entities`
/// session: the registry, the printers' states, their changes in HA's
/// compressed format) and what it wrote before (`get_states` and every
/// `state_changed`): every sample recording, rewritten as HA sends the same
/// session to a `subscribe_entities` subscriber (`EntitiesFormat`), replays
/// to exactly the pushes of the recording as it is, so its golden holds for
/// both formats.
@Suite struct EntitiesFormatTests {
    /// The damaged-input sample is left out: its broken lines break differently.
    static let samples = Repo.sampleFiles().filter { $0 != "odd-input.jsonl" }

    @Test(arguments: samples)
    func theSameSessionInTheNewFormatTellsTheSame(name: String) throws {
        let source = try #require(Repo.read(Repo.sampleEvents + "/" + name))
        let converted = EntitiesFormat.convert(source)
        #expect(converted.contains(#""type":"event","event":{"a":{"#) || converted.contains(#""event":{"a":{"#))
        #expect(!converted.contains(#""event_type":"state_changed""#), "every state change rewritten")
        let path = Repo.temporaryPath(name)
        Repo.write(converted, to: path)
        defer { Repo.write("", to: path) }
        let old = replay([Repo.sampleEvents + "/" + name]), new = replay([path])
        #expect(new.diagnostics.isEmpty, "\(new.diagnostics)")
        #expect(new.lines == old.lines, "\(name): \(new.lines.count) pushes against \(old.lines.count)")
        #expect(new.summary.reading.matchedUpdates == old.summary.reading.matchedUpdates)
    }
}
