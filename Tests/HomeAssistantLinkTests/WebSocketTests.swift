import Foundation
@testable import HomeAssistantLink
import TestSupport
import Testing

/// The ws:// link's own WebSocket: the upgrade's answer (RFC 6455 §4.1) and
/// the frames (§5) as a server sends them, written out here byte by byte
/// rather than by the code under test.
@Suite struct WebSocketUpgradeTests {
    /// RFC 6455 §1.3's example key and its accept value.
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    static func answer(status: String = "101 Switching Protocols", accept: String = accept, extra: String = "") -> [UInt8] {
        Array(("HTTP/1.1 \(status)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(accept)\r\n\(extra)\r\n").utf8)
    }

    static func feed(_ upgrade: inout WebSocketUpgrade, _ bytes: [UInt8]) -> WebSocketUpgrade.Outcome {
        bytes.withUnsafeBytes { upgrade.receive($0) }
    }

    @Test func theAcceptValueIsTheRFCsExample() {
        #expect(WebSocketUpgrade.accept(for: Self.key) == Self.accept)
    }

    @Test func theRequestAsksForVersion13WithAFreshKey() {
        let first = WebSocketUpgrade(), second = WebSocketUpgrade()
        #expect(first.key != second.key)
        #expect(first.key.utf8.count == 24 && first.key.hasSuffix("=="), "16 bytes in base64: \(first.key)")
        let request = String(decoding: first.request(host: "ha.local", port: 8123, secure: false, path: "/api/websocket"), as: UTF8.self)
        #expect(request.hasPrefix("GET /api/websocket HTTP/1.1\r\n"))
        #expect(request.hasSuffix("\r\n\r\n"))
        for line in [
            "Host: ha.local:8123", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: \(first.key)",
            "Sec-WebSocket-Version: 13", "Origin: http://ha.local",
        ] {
            #expect(request.contains("\r\n\(line)\r\n"), "\(line) in \(request)")
        }
        let plain = String(decoding: first.request(host: "::1", port: 80, secure: false, path: "/ws"), as: UTF8.self)
        #expect(plain.contains("\r\nHost: [::1]\r\n"), "the default port is left out; IPv6 in brackets")
    }

    @Test func aGoodAnswerUpgrades() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let answer = Self.answer()
        #expect(Self.feed(&upgrade, answer) == .upgraded(frameBytesAt: answer.count))
    }

    @Test func fieldNamesAndTheUpgradeValueAreCaseInsensitive() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let answer = Array(("HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nCONNECTION: keep-alive, upgrade\r\n"
            + "sec-websocket-accept:\(Self.accept)\r\n\r\n").utf8)
        #expect(Self.feed(&upgrade, answer) == .upgraded(frameBytesAt: answer.count))
    }

    @Test func aWrongAcceptFails() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let outcome = Self.feed(&upgrade, Self.answer(accept: WebSocketUpgrade.accept(for: "AAAAAAAAAAAAAAAAAAAAAA==")))
        #expect(outcome == .failed("Home Assistant's 101 answer has a wrong Sec-WebSocket-Accept (not for our key)"))
    }

    @Test func aMissingUpgradeOrConnectionFails() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let noUpgrade = Array("HTTP/1.1 101 OK\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(Self.accept)\r\n\r\n".utf8)
        #expect(Self.feed(&upgrade, noUpgrade) == .failed("Home Assistant's 101 answer has no \"Upgrade: websocket\""))
        upgrade = WebSocketUpgrade(key: Self.key)
        let noConnection = Array("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: \(Self.accept)\r\n\r\n".utf8)
        #expect(Self.feed(&upgrade, noConnection) == .failed("Home Assistant's 101 answer has no \"Connection: Upgrade\""))
    }

    @Test func anExtensionNotAskedForFails() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let outcome = Self.feed(&upgrade, Self.answer(extra: "Sec-WebSocket-Extensions: permessage-deflate\r\n"))
        #expect(outcome == .failed("Home Assistant's 101 answer names WebSocket extensions the agent did not ask for"))
    }

    @Test func aNon101AnswerFailsWithItsStatus() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let answer = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
        #expect(Self.feed(&upgrade, answer) == .failed("Home Assistant answered 404 Not Found to the WebSocket upgrade"))
        upgrade = WebSocketUpgrade(key: Self.key)
        #expect(Self.feed(&upgrade, Array("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8))
            == .failed("Home Assistant's answer to the WebSocket upgrade is not HTTP: \"SSH-2.0-OpenSSH_9.2\""))
    }

    @Test func aHeadOverTheLimitFails() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let line = Array("X-Padding: \(String(repeating: "a", count: 1000))\r\n".utf8)
        var outcome = Self.feed(&upgrade, Array("HTTP/1.1 101 Switching Protocols\r\n".utf8))
        var sent = 0
        while outcome == .needMore && sent < 40_000 {
            outcome = Self.feed(&upgrade, line)
            sent += line.count
        }
        #expect(outcome == .failed("Home Assistant's answer to the WebSocket upgrade has no end within 16 KB"))
        #expect(sent < WebSocketUpgrade.headLimit + line.count)
    }

    @Test func aHeadSplitAnywhereGivesTheSameOutcome() {
        let answer = Self.answer()
        for cut in 1..<answer.count {
            var upgrade = WebSocketUpgrade(key: Self.key)
            #expect(Self.feed(&upgrade, Array(answer[..<cut])) == .needMore, "cut at \(cut)")
            #expect(Self.feed(&upgrade, Array(answer[cut...])) == .upgraded(frameBytesAt: answer.count - cut), "cut at \(cut)")
        }
        var upgrade = WebSocketUpgrade(key: Self.key)
        for (index, byte) in answer.enumerated() {
            let outcome = Self.feed(&upgrade, [byte])
            #expect(outcome == (index == answer.count - 1 ? .upgraded(frameBytesAt: 1) : .needMore))
        }
    }

    @Test func frameBytesInTheHeadsPieceStartWhereTheHeadEnds() {
        var upgrade = WebSocketUpgrade(key: Self.key)
        let answer = Self.answer()
        let frame = ServerFrame.bytes(opcode: 1, Array(#"{"type":"auth_required"}"#.utf8))
        #expect(Self.feed(&upgrade, answer + frame) == .upgraded(frameBytesAt: answer.count))
    }
}

/// Frames as a server writes them (RFC 6455 §5.2): unmasked.
enum ServerFrame {
    static func bytes(fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, masked: Bool = false, _ payload: [UInt8]) -> [UInt8] {
        var head: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            head.append(mask | UInt8(payload.count))
        } else if payload.count < 65536 {
            head += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            head.append(mask | 127)
            head += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (8 * UInt64($0))) & 0xFF) }
        }
        guard masked else { return head + payload }
        let key: [UInt8] = [1, 2, 3, 4]
        return head + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// Reads one client frame: it must be masked (§5.3); its opcode and unmasked payload, and the bytes after it.
    static func client(_ bytes: [UInt8]) -> (fin: Bool, opcode: UInt8, payload: [UInt8], rest: [UInt8])? {
        guard bytes.count >= 2, bytes[1] & 0x80 != 0 else { return nil }
        var length = Int(bytes[1] & 0x7F)
        var at = 2
        if length == 126 {
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            at = 4
        } else if length == 127 {
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[$1]) }
            at = 10
        }
        guard bytes.count >= at + 4 + length else { return nil }
        let key = Array(bytes[at..<(at + 4)])
        let payload = bytes[(at + 4)..<(at + 4 + length)].enumerated().map { $0.element ^ key[$0.offset % 4] }
        return (bytes[0] & 0x80 != 0, bytes[0] & 0x0F, payload, Array(bytes[(at + 4 + length)...]))
    }
}

@Suite struct WebSocketFramerTests {
    /// What a framer made of some bytes: the messages, whole, and how it ended.
    struct Result: Equatable {
        var messages: [[UInt8]] = []
        var outcome: WebSocketFramer.Outcome = .open
        var pending: [UInt8] = []
    }

    /// Feeds `bytes` in pieces of `piece` bytes (0: whole).
    static func read(_ bytes: [UInt8], piece: Int = 0, maximum: Int = 1 << 20) -> Result {
        let framer = WebSocketFramer(maximumMessageBytes: maximum)
        var result = Result()
        var message: [UInt8] = []
        let size = piece == 0 ? max(1, bytes.count) : piece
        var start = 0
        while start < bytes.count, result.outcome == .open {
            let end = min(bytes.count, start + size)
            result.outcome = Array(bytes[start..<end]).withUnsafeBytes { chunk in
                framer.receive(chunk) { part, final in
                    message += part
                    if final {
                        result.messages.append(message)
                        message = []
                    }
                }
            }
            start = end
        }
        result.pending = framer.takePending()
        return result
    }

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    @Test func wholeMessagesOfEverySizeComeOutWhateverThePieces() {
        let sizes = [0, 1, 125, 126, 4000, 4096, 5000, 65535, 65536, 100_000]
        let messages = sizes.map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) } }
        let stream = messages.flatMap { ServerFrame.bytes(opcode: 2, $0) }
        for piece in [0, 1, 2, 3, 1000, 4096, 32 * 1024] {
            let result = Self.read(stream, piece: piece)
            #expect(result.outcome == .open, "pieces of \(piece)")
            #expect(result.messages == messages, "pieces of \(piece)")
            #expect(result.pending.isEmpty)
        }
    }

    @Test func aFragmentedMessageIsOneMessageWithControlFramesBetween() {
        let stream = ServerFrame.bytes(fin: false, opcode: 1, Self.text("{\"a\":"))
            + ServerFrame.bytes(opcode: 9, Self.text("hi"))
            + ServerFrame.bytes(fin: false, opcode: 0, Self.text("1"))
            + ServerFrame.bytes(opcode: 0, Self.text("}"))
            + ServerFrame.bytes(opcode: 1, Self.text("[]"))
        for piece in [0, 1, 5] {
            let result = Self.read(stream, piece: piece)
            #expect(result.messages == [Self.text("{\"a\":1}"), Self.text("[]")], "pieces of \(piece)")
            #expect(result.outcome == .open)
            let pong = ServerFrame.client(result.pending)
            #expect(pong?.opcode == 10 && pong?.payload == Self.text("hi") && pong?.rest == [], "a masked pong: \(result.pending)")
        }
    }

    @Test func aPingIsAnsweredWithAMaskedPongOfTheSamePayload() {
        let payload = (0..<125).map { UInt8($0) }
        let result = Self.read(ServerFrame.bytes(opcode: 9, payload) + ServerFrame.bytes(opcode: 9, []), piece: 7)
        #expect(result.messages.isEmpty)
        guard let first = ServerFrame.client(result.pending), let second = ServerFrame.client(first.rest) else {
            Issue.record("two masked pongs expected: \(result.pending)")
            return
        }
        #expect(first.fin && first.opcode == 10 && first.payload == payload)
        #expect(second.fin && second.opcode == 10 && second.payload == [] && second.rest == [])
        // The mask key is not left at zero (§5.3: unpredictable).
        #expect(result.pending[2..<6] != [0, 0, 0, 0] || first.rest[2..<6] != [0, 0, 0, 0])
    }

    @Test func aPongIsIgnored() {
        let result = Self.read(ServerFrame.bytes(opcode: 10, Self.text("x")) + ServerFrame.bytes(opcode: 1, Self.text("m")))
        #expect(result == Result(messages: [Self.text("m")], outcome: .open, pending: []))
    }

    @Test func aCloseIsAnsweredWithItsCodeAndNothingAfterIsRead() {
        let close = ServerFrame.bytes(opcode: 8, [0x03, 0xE9] + Self.text("going away"))
        let result = Self.read(close + ServerFrame.bytes(opcode: 1, Self.text("late")), piece: 3)
        #expect(result.outcome == .closed)
        #expect(result.messages.isEmpty)
        let answer = ServerFrame.client(result.pending)
        #expect(answer?.opcode == 8 && answer?.payload == [0x03, 0xE9] && answer?.rest == [])
        let empty = Self.read(ServerFrame.bytes(opcode: 8, []))
        #expect(empty.outcome == .closed && ServerFrame.client(empty.pending)?.payload == [])
    }

    @Test func aFramerSendsOneCloseAndMaskedTexts() {
        let framer = WebSocketFramer(maximumMessageBytes: 100)
        let text = Array(String(repeating: "x", count: 70_000).utf8)
        let frame = ServerFrame.client(framer.textFrame(text))
        #expect(frame?.fin == true && frame?.opcode == 1 && frame?.payload == text && frame?.rest == [])
        let close = ServerFrame.client(framer.closeFrame(.goingAway))
        #expect(close?.opcode == 8 && close?.payload == [0x03, 0xE9])
        #expect(framer.closeFrame(.normal).isEmpty, "one close only")
    }

    @Test func aMessageOverTheLimitFailsAtItsHeader() {
        // Announced over the limit: refused before its payload comes.
        let big = Array(ServerFrame.bytes(opcode: 1, [UInt8](repeating: 0x20, count: 2000)).prefix(10))
        #expect(Self.read(big, maximum: 1000).outcome == .messageTooLarge)
        // Fragments each under it, together over it.
        let fragments = ServerFrame.bytes(fin: false, opcode: 1, [UInt8](repeating: 0x20, count: 600))
            + ServerFrame.bytes(opcode: 0, [UInt8](repeating: 0x20, count: 600))
        let result = Self.read(fragments, maximum: 1000)
        #expect(result.outcome == .messageTooLarge && result.messages.isEmpty)
        #expect(Self.read(ServerFrame.bytes(opcode: 1, [UInt8](repeating: 0x20, count: 1000)), maximum: 1000).outcome == .open)
    }

    @Test func protocolErrorsFailTheConnection() {
        let cases: [([UInt8], String)] = [
            (ServerFrame.bytes(opcode: 1, masked: true, Self.text("x")), "a masked WebSocket frame from the server (RFC 6455 §5.1)"),
            (ServerFrame.bytes(rsv: 4, opcode: 1, Self.text("x")), "a WebSocket frame with reserved bits set (no extension was agreed)"),
            (ServerFrame.bytes(opcode: 0, Self.text("x")), "a WebSocket continuation frame outside a message"),
            (ServerFrame.bytes(fin: false, opcode: 1, Self.text("x")) + ServerFrame.bytes(opcode: 1, Self.text("y")),
             "a new WebSocket message inside an unfinished one"),
            (ServerFrame.bytes(opcode: 3, Self.text("x")), "a WebSocket frame with the unknown opcode 3"),
            (ServerFrame.bytes(opcode: 8, [3]), "a WebSocket close frame with a one-byte status"),
            (ServerFrame.bytes(opcode: 8, [0x03, 0xED]), "a WebSocket close frame with the status 1005"),
            // wslay's own checks: a control frame over 125 bytes, or fragmented.
            (ServerFrame.bytes(opcode: 9, [UInt8](repeating: 0, count: 126)), "a malformed WebSocket frame header (wslay: -200)"),
            (ServerFrame.bytes(fin: false, opcode: 9, []), "a malformed WebSocket frame header (wslay: -200)"),
        ]
        for (bytes, reason) in cases {
            #expect(Self.read(bytes).outcome == .protocolError(reason))
            #expect(Self.read(bytes, piece: 1).outcome == .protocolError(reason), "byte by byte: \(reason)")
        }
    }
}

/// The link itself over ws:// against a scripted server on 127.0.0.1
/// (Tests/DaemonTests/MockHA/upgrade_server.py).
@Suite(.serialized) struct WebSocketLinkTests {
    static let root = CommandRunner.repositoryRoot(from: #filePath)

    /// The link's events until its first disconnect.
    static func untilDisconnected(_ link: HomeAssistantLink) async -> [LinkEvent] {
        var seen: [LinkEvent] = []
        for await event in link.events {
            seen.append(event)
            if case .disconnected = event { break }
        }
        return seen
    }

    static func stats(_ path: String) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    @Test func aRefusedUpgradeIsAFailedConnectWithHAsStatus() async throws {
        let server = try MockProcess(script: Self.root + "/Tests/DaemonTests/MockHA/upgrade_server.py", arguments: ["--status", "404"])
        let link = HomeAssistantLink(endpoint: try HAEndpoint(url: "ws://127.0.0.1:\(server.port)/api/websocket"), accessToken: "t")
        try link.start()
        let events = await Self.untilDisconnected(link)
        link.stop()
        guard case .disconnected(let cause)? = events.last else {
            Issue.record("no disconnect: \(events)")
            return
        }
        #expect(cause == .connectFailed("Home Assistant answered 404 Not Found to the WebSocket upgrade"))
        #expect(!events.contains { if case .connected = $0 { true } else { false } })
    }

    @Test func aPingIsAnsweredAndACloseClosesPolitely() async throws {
        let stats = NSTemporaryDirectory() + "printbridge-upgrade-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let server = try MockProcess(
            script: Self.root + "/Tests/DaemonTests/MockHA/upgrade_server.py", arguments: ["--ping-close", "--stats", stats])
        let link = HomeAssistantLink(endpoint: try HAEndpoint(url: "ws://127.0.0.1:\(server.port)/api/websocket"), accessToken: "t")
        try link.start()
        let events = await Self.untilDisconnected(link)
        link.stop()
        #expect(events.contains { if case .connected = $0 { true } else { false } }, "\(events)")
        guard case .disconnected(let cause)? = events.last else {
            Issue.record("no disconnect: \(events)")
            return
        }
        #expect(cause == .closed)
        // The server writes down the link's close once it has read it.
        var seen = Self.stats(stats)
        for _ in 0..<200 where seen["close_code"] as? Int == nil {  // up to 20 s: a busy machine
            try await Task.sleep(nanoseconds: 100_000_000)
            seen = Self.stats(stats)
        }
        #expect(seen["pong"] as? String == "p1", "\(seen)")
        #expect(seen["close_code"] as? Int == 1000, "\(seen)")
        withExtendedLifetime(server) {}
    }
}
