import Testing
@testable import PrintBridgeCore

@Suite struct ISO8601Tests {
    @Test(arguments: [
        ("2026-11-20T09:00:00.000000+00:00", 1_795_165_200.0),
        ("2026-11-20T09:00:00Z", 1_795_165_200.0),
        ("2026-11-20T10:00:00+01:00", 1_795_165_200.0),
        ("2026-11-20T04:30:00-0430", 1_795_165_200.0),
        ("2026-11-20 09:00:00.5+00:00", 1_795_165_200.5),
        ("1970-01-01T00:00:00Z", 0),
        ("2024-02-29T12:00:00Z", 1_709_208_000),
    ])
    func parsesHATimestamps(text: String, seconds: Double) {
        #expect(ISO8601.parse(text) == EpochTime(seconds: seconds))
    }

    @Test(arguments: ["", "2026-11-20", "2026-11-20T09:00:00", "2026-13-01T00:00:00Z", "2026-11-20T25:00:00Z",
                      "2026-11-20T09:00:00.Z", "2026-11-20T09:00:00+00:00 trailing", "yesterday",
                      // Found by FuzzISO8601: instants outside years 0001–9999 cannot be written back.
                      "0000-01-01T00:00:00+1615", "0000-06-01T00:00:00Z", "9999-12-31T23:00:00-01:00"])
    func rejectsAnythingElse(text: String) {
        #expect(ISO8601.parse(text) == nil)
    }

    @Test func formatsUTCWithMilliseconds() {
        #expect(ISO8601.format(EpochTime(seconds: 1_795_165_200.25)) == "2026-11-20T09:00:00.250Z")
        #expect(ISO8601.format(EpochTime(seconds: 0)) == "1970-01-01T00:00:00.000Z")
        // The ends of four-digit years, and past them (written the long way).
        #expect(ISO8601.format(EpochTime(seconds: 253_402_300_799.999)) == "9999-12-31T23:59:59.999Z")
        #expect(ISO8601.format(EpochTime(seconds: -62_167_219_200)) == "0000-01-01T00:00:00.000Z")
        #expect(ISO8601.format(EpochTime(seconds: 253_402_300_800)) == "10000-01-01T00:00:00.000Z")
        #expect(ISO8601.format(EpochTime(seconds: -0.001)) == "1969-12-31T23:59:59.999Z")
        let time = EpochTime(seconds: 1_709_208_000.5)
        #expect(ISO8601.parse(ISO8601.format(time)) == time)
        for text in ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T01:00:00+01:00"] {
            let parsed = ISO8601.parse(text)
            #expect(parsed != nil && ISO8601.parse(ISO8601.format(parsed!)) == parsed, "\(text)")
        }
    }
}
