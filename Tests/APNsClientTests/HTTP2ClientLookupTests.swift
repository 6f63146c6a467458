@testable import APNsClient
import Foundation
import PrintBridgeCore
import Synchronization
import Testing

/// The client's host name is looked up beside its loop, never on it, and
/// the addresses are tried in turn; and the client's lifecycle from async code.
@Suite(.serialized) struct HTTP2ClientLookupTests {
    /// Calls of a test's resolver: on which thread, for what.
    final class Lookups: Sendable {
        private let calls = Mutex<[(thread: String, host: String)]>([])
        var recorded: [(thread: String, host: String)] { calls.withLock { $0 } }
        func record(_ host: String) {
            let thread = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            calls.withLock { $0.append((thread.trimmingCharacters(in: .whitespacesAndNewlines), host)) }
        }
    }

    /// A local port nothing listens on (it was free a moment ago).
    static func closedPort() -> Int {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(probe, pointer, length)
                return getsockname(probe, pointer, &length)
            }
        }
        close(probe)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aHostNameIsLookedUpBesideTheLoopAndItsAddressesTriedInTurn() async throws {
        let server = try MockAPNsServer()
        let lookups = Lookups()
        let dead = try #require(SocketAddress(numericHost: "127.0.0.1", port: Self.closedPort()))
        var options = HTTP2Client.Options(caFile: server.configuration.caFile)
        // The system's answer for localhost (/etc/hosts), after an address that refuses.
        options.resolve = { host, port in
            lookups.record(host)
            return SocketAddress.resolve(host: host, port: port).map { [dead] + $0 }
        }
        let client = try HTTP2Client(origin: try #require(HTTPOrigin("https://localhost:\(server.port)")), options: options)
        let sender = try APNsSender(
            configuration: server.configuration, key: try APNsSigningKey(path: server.keyPath), client: client)
        #expect(await sender.send(alertPush(to: token("ab", 1))).isDelivered)
        #expect(await sender.send(alertPush(to: token("ab", 2))).isDelivered)
        #expect(lookups.recorded.map(\.host) == ["localhost"], "looked up once, for the connection")
        #expect(lookups.recorded.first?.thread == "pb-apns-dns", "not on the loop (pb-apns): \(lookups.recorded)")
        #expect(try server.stat("connections") == 1)
        await client.shutdown(grace: 1)
    }

    @Test func aLookupThatHangsHoldsNeitherTheLoopNorAnotherThread() async throws {
        let server = try MockAPNsServer()
        let lookups = Lookups()
        let gate = DispatchSemaphore(value: 0)
        let good = try #require(SocketAddress(numericHost: "127.0.0.1", port: server.port))
        var options = HTTP2Client.Options(caFile: server.configuration.caFile)
        options.connectTimeout = 1
        options.resolve = { host, _ in
            lookups.record(host)
            // The first lookup hangs (a DNS server that does not answer) until let go.
            if lookups.recorded.count == 1 { gate.wait() }
            return .success([good])
        }
        let client = try HTTP2Client(origin: try #require(HTTPOrigin("https://localhost:\(server.port)")), options: options)
        let request = HTTP2Request(path: "/3/device/" + token("ab"), headers: [], body: [])
        // Both connect timeouts fire while the lookup is still stuck (the gate
        // opens only after them): the loop was never held. No wall-clock
        // bound: under the whole suite this task itself may wait its turn.
        for _ in 0..<2 {
            await #expect(throws: HTTP2TransportError(.connect, "no connection to localhost:\(server.port) within 1 s")) {
                try await client.send(request)
            }
        }
        #expect(lookups.recorded.count == 1, "the second connection waited for the same lookup")
        gate.signal()
        // The next connection takes that lookup's answer if it still runs
        // when asked, or looks up afresh (a late answer nobody wanted is dropped).
        let answer = try await client.send(request)
        #expect((400..<500).contains(answer.status), "an answer from the mock APNs: \(answer.status)")
        #expect((1...2).contains(lookups.recorded.count))
        await client.shutdown(grace: 1)
    }

    @Test func aFailedLookupFailsTheWaitingRequestsAsAConnectError() async throws {
        var options = HTTP2Client.Options()
        options.resolve = { host, _ in .failure(HTTP2TransportError(.connect, "cannot resolve \(host): test")) }
        let client = try HTTP2Client(origin: try #require(HTTPOrigin("https://apns.invalid")), options: options)
        await #expect(throws: HTTP2TransportError(.connect, "cannot resolve apns.invalid: test")) {
            try await client.send(HTTP2Request(path: "/3/device/ab", headers: [], body: []))
        }
        await client.shutdown(grace: 0)
    }

    @Test func shutdownCanBeAwaitedWithoutBlockingAThread() async throws {
        let server = try MockAPNsServer()
        let client = try HTTP2Client(
            origin: try #require(server.configuration.origin), options: .init(caFile: server.configuration.caFile))
        let request = HTTP2Request(path: "/3/device/" + token("ab"), headers: [], body: [])
        _ = try await client.send(request)
        await client.shutdown(grace: 1)
        await #expect(throws: HTTP2TransportError.shutdown) { try await client.send(request) }
        await client.shutdown(grace: 1)  // a second time: returns at once
        let blocking: @Sendable () -> Void = { client.shutdown(grace: 1) }
        blocking()  // and so does the blocking one, after it
    }
}
