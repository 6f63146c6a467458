import EventReplay
import PrintBridgeCore
import Testing

@Suite struct ReplayDiagnosticsTests {
    @Test func badLinesAreReportedWithFileAndLineAndSkipped() {
        let path = Repo.sampleEvents + "/odd-input.jsonl"
        let result = replay([path])
        let described = result.diagnostics.map(\.description)
        #expect(described.contains { $0.hasPrefix(path + ":21: skipped: invalid JSON") })
        #expect(described.contains { $0.hasPrefix(path + ":22: skipped: unexpected message shape") })
        #expect(described.contains { $0.hasPrefix(path + ":40: skipped: invalid JSON") && $0.contains("unterminated") },
                "the truncated last line")
        #expect(result.summary.badLines == 3)
        // The good lines around them still drive the print.
        #expect(result.pushes.filter { $0.kind == .alert }.map(\.event) == [.started, .milestone, .milestone])
    }

    @Test func anUnreadableFileIsReportedAndTheNextOneStillReplays() {
        let result = replay(["/nonexistent/events.jsonl", Repo.sampleEvents + "/milestone-jump.jsonl", "/tmp"])
        #expect(result.summary.unreadableFiles == 2)
        #expect(result.diagnostics.first?.description == "/nonexistent/events.jsonl: cannot read file: No such file or directory")
        #expect(result.diagnostics.last?.description == "/tmp: cannot read file: it is a directory")
        #expect(!result.pushes.isEmpty)
    }

    @Test func emptyAndBlankFilesProduceNothing() {
        let path = Repo.temporaryPath("blank.jsonl")
        Repo.write("\n   \n\n", to: path)
        let result = replay([path])
        #expect(result.pushes.isEmpty && result.diagnostics.isEmpty)
    }
}

@Suite struct LineReaderTests {
    func lines(of text: String, chunkSize: Int) throws -> [String] {
        let path = Repo.temporaryPath("lines-\(chunkSize).txt")
        Repo.write(text, to: path)
        var reader = try LineReader(path: path, chunkSize: chunkSize)
        var lines: [String] = []
        try reader.forEachLine { line, number in
            #expect(number == lines.count + 1)
            lines.append(String(decoding: line, as: UTF8.self))
        }
        return lines
    }

    @Test func linesLongerThanTheBufferCRLFAndNoFinalNewline() throws {
        let long = String(repeating: "x", count: 20_000)
        let text = "a\r\n\(long)\nb\n\nlast"
        for chunk in [4096, 1 << 16] {
            #expect(try lines(of: text, chunkSize: chunk) == ["a", long, "b", "", "last"])
        }
    }
}

@Suite struct DevicesFileTests {
    let token = String(repeating: "ab", count: 32)

    func parse(_ text: String) throws -> [Device] {
        try DevicesFile.parse(Array(text.utf8), source: "devices.json")
    }

    @Test func readsEveryField() throws {
        let devices = try parse("""
            [{"apnsToken":"\(token.uppercased())","printerPrefix":"x1c","printerName":"X","settings":{"onMilestone":false},
              "activityTokens":{"x1c":"\(String(repeating: "cd", count: 40))"},"pushToStartToken":"\(String(repeating: "ef", count: 40))"},
             {"apnsToken":"\(String(repeating: "12", count: 32))"}]
            """)
        #expect(devices.count == 2)
        #expect(devices[0].apnsToken == token, "tokens are normalised to lowercase")
        #expect(devices[0].printerPrefixes == ["x1c"] && devices[0].printerName == "X")
        #expect(devices[0].preferences == NotificationPreferences(onMilestone: false))
        #expect(devices[0].activityTokens["x1c"]?.count == 80)
        #expect(devices[0].pushToStartToken?.count == 80)
        #expect(devices[1].printerPrefixes.isEmpty && devices[1].preferences == .all)
    }

    @Test(arguments: [
        ("{}", "expected a JSON array"), ("[1]", "device 1: not an object"),
        (#"[{"apnsToken":"xyz"}]"#, "must be a hex APNs device token"),
        (#"[{}]"#, "must be a hex APNs device token"),
        ("[{\"apnsToken\":\"TOKEN\",\"settings\":{\"onStart\":\"yes\"}}]", "settings.onStart must be true or false"),
        ("[{\"apnsToken\":\"TOKEN\",\"settings\":{\"onStrat\":true}}]", "unknown setting \"onStrat\""),
        ("[{\"apnsToken\":\"TOKEN\",\"activityTokens\":{\"x\":\"no\"}}]", "activity token for x is not a hex token"),
        ("[{\"apnsToken\":\"TOKEN\"},{\"apnsToken\":\"TOKEN\"}]", "device 2: token abab"),
        ("[{\"apnsToken\":\"TOKEN\",\"printerPrefix\":\"\"}]", "\"printerPrefix\" must be a non-empty string"),
        ("[", "devices.json: invalid JSON"),
    ])
    func mistakesAreNamedPrecisely(text: String, message: String) {
        #expect {
            _ = try parse(text.replacingAll("TOKEN", with: token))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func errorsNeverShowAWholeToken() {
        do {
            _ = try parse("[{\"apnsToken\":\"\(token)\"},{\"apnsToken\":\"\(token)\"}]")
            Issue.record("duplicate accepted")
        } catch {
            #expect(!"\(error)".contains(token))
        }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
