import Foundation
import TestSupport
import Testing

/// Memory after a flood of hostile connections (issue 48, point 9): the
/// API's server hands what the connections left in the allocator back once
/// it is idle again, instead of holding it until something else trims.
@Suite struct ConnectionFloodTests {
    /// The agent's socket descriptors now.
    static func sockets(_ agent: DaemonTests.Agent) -> Int {
        let directory = "/proc/\(agent.process.pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0))?.hasPrefix("socket:") == true }
            .count
    }

    @Test func memoryComesBackOnceAFloodOfTLSConnectionsIsOver() throws {
        // HA sends its snapshot and then nothing (the events wait 10 minutes):
        // no bulk message, so nothing but the API's server trims the heap.
        let ha = try DaemonTests.MockHA(events: "bambu-full-print.jsonl", arguments: ["--start-delay", "600"])
        let agent = try DaemonTests.Agent(
            port: ha.port, devices: try DaemonTests.devicesFile(), environment: ["API_LISTEN": "0.0.0.0:0"])
        defer { _ = agent.stop() }
        #expect(agent.wait(upTo: 30) { agent.log.contains("subscribed to state changes") })
        let port = try #require(agent.apiPort)
        // Settled: the snapshot's trim (0.5 s after it) done, and a whole second without CPU time.
        var busy = agent.cpuTicks
        #expect(agent.wait(upTo: 120) {
            Thread.sleep(forTimeInterval: 1)
            defer { busy = agent.cpuTicks }
            return agent.cpuTicks == busy
        })
        let sockets = Self.sockets(agent), before = agent.anonymousBytes

        // 2,000 hostile connections over TLS (scripts/bench/connection_flood.py), 500 at once.
        let flood = try CommandRunner.execute(
            "/usr/bin/env",
            ["python3", DaemonTests.root + "/scripts/bench/connection_flood.py", "--port", "\(port)",
             "--connections", "2000", "--concurrency", "500"],
            directory: DaemonTests.root)
        #expect(flood.status == 0, "\(flood.stderr)")
        let outcome = (try? JSONSerialization.jsonObject(with: Data(flood.stdout.utf8))) as? [String: Int] ?? [:]
        #expect((outcome["handshakes"] ?? 0) >= 1_500, "the flood was over TLS: \(outcome)")
        let end = agent.anonymousBytes
        #expect(agent.wait(upTo: 30) { Self.sockets(agent) <= sockets }, "the agent let every connection go")

        // Back within 8 MiB of before, while nothing happens. Without the
        // server's trim it stays ~36 MiB up (the connections' buffers, freed
        // in the middle of the heap); with it, 1-2 MiB (debug build).
        let came = agent.wait(upTo: 5) { agent.anonymousBytes < before + 8 << 20 }
        #expect(came, "RssAnon \(before >> 10) KiB before the flood, \(end >> 10) KiB at its end, \(agent.anonymousBytes >> 10) KiB after")
        _ = ha
    }
}
