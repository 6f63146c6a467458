import Agent
import DeviceStore
import Foundation
import Logging
import PrintBridgeCore
import Testing

/// PRINT_HISTORY_DAYS as the agent applies it: at start, prints older than
/// the retention leave the history; their figures stay in the statistics.
@Suite struct AgentRetentionTests {
    @Test func atStartOldPrintsAreRolledUpAndTheirFiguresKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retention-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = 1_795_165_200.0  // 2026-11-20T04:20Z
        let store = try DeviceStore(directory: directory, clock: ManualClock(EpochTime(seconds: now)))
        func print(_ daysAgo: Double) -> PrintRecord {
            let end = now - daysAgo * 86_400
            return PrintRecord(
                printID: "x1c-\(Int(end - 3600))", printer: "x1c", startedAt: EpochTime(seconds: end - 3600),
                endedAt: EpochTime(seconds: end), outcome: .complete, pausedSeconds: 0)
        }
        try store.commit(prints: [print(40), print(35), print(2)])
        let agentStore = try AgentStore(
            store, logger: Logger(label: "retention") { _ in SwiftLogNoOpLogHandler() }, printRetention: 30 * 86_400)
        _ = try await agentStore.start()
        #expect(try store.printHistory().count == 1, "the prints of 35 and 40 days ago left the history")
        let counts = try store.statisticsCounts(printer: nil, from: Int64(now) - 60 * 86_400, to: Int64(now), clock: .utc)
        #expect(counts.days.values.reduce(0) { $0 + $1.prints } == 3, "and are still counted")
    }
}
