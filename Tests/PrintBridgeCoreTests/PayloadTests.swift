import FoundationEssentials
import PrinterActivityContent
import Testing
@testable import PrintBridgeCore

@Suite struct AlertPayloadTests {
    @Test func tokensAreShownShortened() {
        #expect(TokenFormat.shortened(String(repeating: "ab", count: 32)) == "ababab…abab")
        #expect(TokenFormat.shortened("0123456789abc") == "012345…9abc")
        #expect(TokenFormat.shortened("0123456789ab") == "••••", "twelve or fewer: nothing of it shown")
        #expect(TokenFormat.shortened("") == "")
        #expect(TokenFormat.shortened("ünïcödé-tökén-x") == "ünïcöd…én-x", "by characters, not bytes")
    }

    @Test func matchesTheSeedShapeExactly() throws {
        let bytes = try AlertPayload(
            event: .complete, prefix: "x1c", printerName: "X1C", fileName: "benchy.3mf", status: .complete,
            progress: 100
        ).encoded()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"aps":{"alert":{"body":"benchy.3mf finished on X1C","title":"Print Complete! 🎉"},"sound":"default","thread-id":"x1c"},"printerState":{"filename":"benchy.3mf","prefix":"x1c","progress":100,"status":"complete","type":"print_complete"}}"#)
    }

    @Test(arguments: [
        (Push.Event.started, "Print Started", "part.3mf started on P", "print_started"),
        (.failed, "Print Failed ⚠️", "part.3mf failed on P", "print_failed"),
        (.paused, "Print Paused", "part.3mf paused on P", "print_paused"),
        (.cancelled, "Print Cancelled", "part.3mf was cancelled on P", "print_cancelled"),
        (.milestone, "50% Complete", "part.3mf on P", "progress_milestone"),
    ])
    func titlesAndBodies(event: Push.Event, title: String, body: String, type: String) throws {
        let json = try JSONParser.parse(
            AlertPayload(event: event, prefix: "p", printerName: "P", fileName: "part.3mf", status: .running,
                         progress: 51, milestone: event == .milestone ? 50 : nil).encoded())
        #expect(json["aps"]?["alert"]?["title"] == .string(title))
        #expect(json["aps"]?["alert"]?["body"] == .string(body))
        #expect(json["printerState"]?["type"] == .string(type))
    }

    @Test func anUnknownFileIsCalledPrint() throws {
        let json = try JSONParser.parse(
            AlertPayload(event: .started, prefix: "p", printerName: "P", fileName: nil, status: .running, progress: 0).encoded())
        #expect(json["aps"]?["alert"]?["body"] == .string("Print started on P"))
        #expect(json["printerState"]?["filename"] == nil)
    }

    @Test func aHugeFileNameIsShortenedToFit4096Bytes() throws {
        let name = String(repeating: "very_long_name_", count: 600) + ".3mf"
        let bytes = try AlertPayload(event: .complete, prefix: "x", printerName: "X", fileName: name, status: .complete,
                                     progress: 100).encoded()
        #expect(bytes.count <= PayloadLimits.maximumPayloadBytes)
        let json = try JSONParser.parse(bytes)
        #expect(json["printerState"]?["filename"]?.stringValue?.hasSuffix("…") == true)
        #expect(json["aps"]?["alert"]?["body"]?.stringValue?.hasSuffix("… finished on X") == true)
    }

    @Test func collapseIDsStayWithin64BytesAndDistinct() {
        let long1 = String(repeating: "a", count: 80) + "1"
        let long2 = String(repeating: "a", count: 80) + "2"
        let one = PayloadLimits.collapseID(prefix: long1, event: "complete")
        let two = PayloadLimits.collapseID(prefix: long2, event: "complete")
        #expect(one.utf8.count <= 64 && two.utf8.count <= 64)
        #expect(one != two)
        #expect(PayloadLimits.collapseID(prefix: "x1c", event: "milestone") == "x1c.milestone")
    }
}

@Suite struct LiveActivityPayloadTests {
    let state = PrinterActivityAttributes.ContentState(
        progress: 42, currentLayer: 100, totalLayers: 250, remainingSeconds: 1800, status: "running", nozzleTemp: 220,
        bedTemp: 65)
    let now = EpochTime(seconds: 1_795_165_200)

    @Test func updateCarriesTimestampEventContentStateAndStaleDate() throws {
        let json = try JSONParser.parse(LiveActivityPayload.update(state, at: now, staleAfter: 900).encoded())
        let aps = try #require(json["aps"]?.objectValue)
        #expect(Set(aps.keys) == ["timestamp", "event", "content-state", "stale-date"])
        #expect(aps["timestamp"]?.intValue == 1_795_165_200)
        #expect(aps["event"] == .string("update"))
        #expect(aps["stale-date"]?.intValue == 1_795_166_100)
    }

    @Test func endAddsDismissalDate() throws {
        let json = try JSONParser.parse(LiveActivityPayload.end(state, at: now, dismissAfter: 3600).encoded())
        #expect(json["aps"]?["event"] == .string("end"))
        #expect(json["aps"]?["dismissal-date"]?.intValue == 1_795_168_800)
    }

    @Test func contentStateDecodesWithAPlainJSONDecoderLikeIOS() throws {
        let bytes = try LiveActivityPayload.update(state, at: now, staleAfter: 900).encoded()
        let json = try JSONParser.parse(bytes)
        let contentState = try #require(json["aps"]?["content-state"])
        let decoded = try JSONDecoder().decode(
            PrinterActivityAttributes.ContentState.self, from: Data(JSONText.encode(contentState).utf8))
        #expect(decoded == state)
    }

    @Test func pushToStartAttributesDecodeLikeIOS() throws {
        let attributes = PrinterActivityAttributes(
            filename: "gear.3mf", startTime: Date(timeIntervalSince1970: now.seconds), printerName: "X1C",
            printerModel: "X1C", entityPrefix: "x1c")
        let bytes = try LiveActivityPayload.start(state, attributes: attributes, at: now, staleAfter: 900).encoded()
        let json = try JSONParser.parse(bytes)
        let decoded = try JSONDecoder().decode(
            PrinterActivityAttributes.self, from: Data(JSONText.encode(try #require(json["aps"]?["attributes"])).utf8))
        #expect(decoded == attributes)
    }
}

/// The app's types as the phase 5 seed wrote them: the seed server's
/// `LiveActivityContentState` JSON decodes into `ContentState`, and encodes
/// back to the same keys and values.
@Suite struct SeedContentStateTests {
    static let seedJSON = #"{"progress":45,"currentLayer":120,"totalLayers":300,"remainingSeconds":3725,"status":"running","nozzleTemp":220,"bedTemp":60}"#

    @Test func theSeedsContentStateDecodesAndEncodesBack() throws {
        let decoded = try JSONDecoder().decode(PrinterActivityAttributes.ContentState.self, from: Data(Self.seedJSON.utf8))
        #expect(decoded.progress == 45 && decoded.currentLayer == 120 && decoded.totalLayers == 300)
        #expect(decoded.remainingSeconds == 3725 && decoded.status == "running" && decoded.nozzleTemp == 220 && decoded.bedTemp == 60)
        #expect(decoded.formattedTimeRemaining == "1h 2m")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let again = try JSONParser.parse(Array(try encoder.encode(decoded)))
        #expect(again == (try JSONParser.parse(Self.seedJSON)))
    }
}
