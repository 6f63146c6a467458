import Foundation
import TestSupport
import Testing

/// `printbridge run` asks the mock HA for the printers' entities only
/// (`subscribe_entities`, issue 50) and follows the registry while it runs:
/// no household change reaches it, a printer added, an entity renamed or a
/// printer removed in HA is picked up without a restart, and an HA without
/// the command is watched as before.
@Suite(.serialized) struct PrintersOnlyTests {
    typealias MockHA = DaemonTests.MockHA
    typealias Agent = DaemonTests.Agent

    static let x1c = "x1c_00m09a350100123"
    static let a1 = "a1mini_0300aa2a1500789"

    /// Every subscribe_entities the mock answered: its connection and ids.
    static func subscriptions(_ ha: MockHA) -> [(connection: Int, ids: [String])] {
        (ha.rawStats()["subscriptions"] as? [[String: Any]] ?? []).map {
            ($0["connection"] as? Int ?? 0, $0["entity_ids"] as? [String] ?? [])
        }
    }

    static func withheld(_ ha: MockHA) -> Int {
        (ha.rawStats()["by_connection"] as? [String: [String: Int]] ?? [:]).values.map { $0["withheld"] ?? 0 }.reduce(0, +)
    }

    func alerts(_ agent: Agent, _ printer: String) -> [String] {
        agent.pushes.filter { $0["printer"] as? String == printer && $0["push_type"] as? String == "alert" }
            .compactMap { $0["event"] as? String }
    }

    /// HA changes household entities hundreds of times a second and the
    /// recording's own household entities too; the agent gets none of it:
    /// every event it received is one the mock sent it for a printer entity.
    @Test func aHouseholdChangeSendsTheAgentNothing() throws {
        let ha = try MockHA(events: "two-printers-with-noise.jsonl", arguments: ["--household", "400", "--coalesce"])
        let agent = try Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 60) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        let household = ha.stats()["household_changes"] ?? 0
        #expect(agent.stop() == 0)
        // What replaying the recording tells.
        #expect(alerts(agent, Self.x1c) == ["started", "milestone", "milestone", "milestone", "complete"])
        #expect(alerts(agent, Self.a1) == ["started", "milestone", "cancelled"])
        #expect(household >= 400, "HA's household changed: \(household)")
        #expect(Self.withheld(ha) > household, "the household's and the recording's household changes, none sent")
        let subscriptions = Self.subscriptions(ha)
        #expect(subscriptions.count == 1)
        #expect(subscriptions.allSatisfy { $0.ids.allSatisfy { $0.contains(Self.x1c) || $0.contains(Self.a1) } }, "\(subscriptions)")
        #expect(agent.logged("asked Home Assistant for the printers' entities only").first?["ha.entities"] as? Int == subscriptions.first?.ids.count)
    }

    /// The house has no printer when the agent starts: it asks for nothing
    /// (an empty list would be every entity) and says so; the printer's
    /// integration is then set up in HA, and its print is told in full.
    @Test func aPrinterAddedWhileRunningIsPickedUp() throws {
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--added-later"])
        let agent = try Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") }, "\(agent.log.suffix(3000))")
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect(agent.alerts == DaemonTests.fullPrintAlerts)
        #expect(ha.stats()["printers_added"] == 1 && ha.stats()["connections"] == 1, "no restart, no reconnect")
        #expect(ha.stats()["registry_requests"] ?? 0 >= 2, "the registry read again after its change events")
        #expect(agent.logged("Home Assistant's entity registry names no printer entity; asking for none until one is added").count == 1)
        let subscriptions = Self.subscriptions(ha)
        #expect(subscriptions.count == 1 && subscriptions.first?.ids.contains("sensor.\(Self.x1c)_print_status") == true,
                "nothing asked for before the printer came: \(subscriptions)")
    }

    /// The print's progress entity is renamed mid-print (as a user does in
    /// HA's entity settings; HA removes it and adds it under its new id):
    /// the agent asks for the new id and every milestone still comes.
    @Test func aRenamedEntityIsFollowed() throws {
        let old = "sensor.\(Self.x1c)_print_progress", new = "sensor.\(Self.x1c)_fortschritt"
        let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--rename-later", "\(old)=\(new):30"])
        let agent = try Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 30) { agent.alerts.contains("ab complete") })
        #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect(ha.stats()["renamed"] == 1)
        #expect(agent.alerts == DaemonTests.fullPrintAlerts, "the milestones read from the renamed entity")
        let subscriptions = Self.subscriptions(ha)
        #expect(subscriptions.count == 2, "\(subscriptions)")
        #expect(subscriptions.last.map { $0.ids.contains(new) && !$0.ids.contains(old) } == true)
        #expect(ha.stats()["unsubscribes"] == 1, "the old subscription ended")
        #expect(ha.stats()["connections"] == 1)
    }

    /// A printer removed from HA mid-print is no longer asked for; the
    /// other prints on.
    @Test func aRemovedPrinterIsNoLongerAskedFor() throws {
        let ha = try MockHA(events: "two-printers-with-noise.jsonl", arguments: ["--remove-later", "\(Self.a1):200"])
        let agent = try Agent(port: ha.port, devices: try DaemonTests.devicesFile())
        #expect(agent.wait(upTo: 60) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
        #expect(agent.stop() == 0)
        #expect((ha.stats()["removed"] ?? 0) > 10)
        #expect(alerts(agent, Self.a1).first == "started" && !alerts(agent, Self.a1).contains("cancelled"))
        #expect(alerts(agent, Self.x1c).last == "complete")
        let subscriptions = Self.subscriptions(ha)
        #expect(subscriptions.count == 2)
        #expect(subscriptions.last.map { !$0.ids.contains { $0.contains(Self.a1) } } == true, "\(subscriptions)")
    }

    /// An HA older than subscribe_entities (2022.4) or the registry's
    /// list_for_display (2023.3) answers unknown_command: the agent says so,
    /// naming HA's version, and watches every state change as before.
    @Test func anHAWithoutTheCommandsIsWatchedAsBefore() throws {
        for unknown in ["subscribe_entities", "config/entity_registry/list_for_display"] {
            let ha = try MockHA(events: "bambu-full-print.jsonl", arguments: ["--unknown-command", unknown, "--household", "100"])
            let agent = try Agent(port: ha.port, devices: try DaemonTests.devicesFile())
            #expect(agent.wait(upTo: 30) { agent.hasReceivedEverything(from: ha) }, "mock HA: \(ha.rawStats())")
            #expect(agent.stop() == 0)
            #expect(agent.alerts == DaemonTests.fullPrintAlerts, "\(unknown)")
            let warning = agent.logged("Home Assistant cannot send only the printers' entities; receiving every state change of the house instead")
            #expect(warning.count == 1 && warning.first?["ha.version"] as? String == "2026.11.2"
                    && warning.first?["ha.command"] as? String == unknown, "\(warning)")
            #expect(Self.subscriptions(ha).isEmpty)
            #expect(Self.withheld(ha) == 0, "the household sent too")
        }
    }
}
