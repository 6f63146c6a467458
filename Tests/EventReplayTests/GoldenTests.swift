import EventReplay
import PrintBridgeCore
import Testing

/// Every sample file replays to exactly the pushes committed beside it in
/// SampleEvents/expected/ (regenerate with scripts/update-goldens.sh and
/// review the diff).
@Suite struct GoldenTests {
    @Test func thereAreAtLeastSixScenarios() {
        #expect(Repo.sampleFiles().count >= 6)
    }

    @Test(arguments: Repo.sampleFiles())
    func sampleReplaysToItsGolden(name: String) throws {
        let result = replay([Repo.sampleEvents + "/" + name])
        let golden = try #require(Repo.read(Repo.sampleEvents + "/expected/" + name), "missing golden for \(name)")
        assertSameLines(result.lines, golden)
    }

    @Test func devicesFileReplaysToItsGolden() throws {
        let bytes = Array(try #require(Repo.read(Repo.sampleEvents + "/devices.example.json")).utf8)
        let devices = try DevicesFile.parse(bytes, source: "devices.example.json")
        let result = replay([Repo.sampleEvents + "/two-printers-with-noise.jsonl"], devices: devices)
        let golden = try #require(Repo.read(Repo.sampleEvents + "/expected/two-printers-with-noise.devices.jsonl"))
        assertSameLines(result.lines, golden)
    }

    /// `NAME.devices.json` beside `NAME.jsonl`: the scenario with those phones
    /// (a German phone beside an English one, …).
    @Test(arguments: Repo.sampleFiles(ending: ".devices.json"))
    func scenarioWithItsDevicesReplaysToItsGolden(devicesFile: String) throws {
        let name = String(devicesFile.dropLast(".devices.json".count))
        let bytes = Array(try #require(Repo.read(Repo.sampleEvents + "/" + devicesFile)).utf8)
        let devices = try DevicesFile.parse(bytes, source: devicesFile)
        let result = replay([Repo.sampleEvents + "/" + name + ".jsonl"], devices: devices)
        let golden = try #require(Repo.read(Repo.sampleEvents + "/expected/" + name + ".devices.jsonl"))
        assertSameLines(result.lines, golden)
    }

    private func assertSameLines(_ actual: [String], _ golden: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = golden.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        #expect(actual.count == expected.count, "push count", sourceLocation: sourceLocation)
        for (index, (got, want)) in zip(actual, expected).enumerated() where got != want {
            Issue.record("push \(index + 1) differs:\n got: \(got)\nwant: \(want)", sourceLocation: sourceLocation)
            return
        }
    }
}
