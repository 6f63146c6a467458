import Agent
import DeviceStore
import PrintBridgeCore
import Synchronization
import Testing

/// A channel manager that answers as scripted (APNs' own answers are
/// the mock's, APNsChannelsTests).
final class ScriptedChannels: ChannelManager {
    private let state = Mutex((creates: [Result<String, ChannelFailure>](), made: 0, calls: [String]()))

    func script(creates: Result<String, ChannelFailure>...) { state.withLock { $0.creates += creates } }
    var calls: [String] { state.withLock { $0.calls } }

    func createChannel() async -> Result<String, ChannelFailure> {
        state.withLock { state in
            state.calls.append("create")
            if !state.creates.isEmpty { return state.creates.removeFirst() }
            state.made += 1
            return .success("Y2hhbm5lbC\(state.made)=")
        }
    }

    func deleteChannel(_ id: String) async -> Result<Void, ChannelFailure> {
        state.withLock { $0.calls.append("delete \(id)") }
        return .success(())
    }

    func listChannels() async -> Result<[String], ChannelFailure> {
        state.withLock { $0.calls.append("list") }
        return .success([])
    }
}

/// The running agent keeps a channel per printer and broadcasts to it for
/// the phones that follow by channel (issue 52).
@Suite struct AgentChannelTests {
    @Test func theAgentMakesAChannelAfterABackOffAndBroadcastsToIt() async throws {
        let manager = ScriptedChannels()
        manager.script(creates: .failure(.rejected(status: 503, reason: .serviceUnavailable)))
        let h = try AgentHarness(channels: manager)
        let phone = try #require(try h.store.devices().first).id
        try await withAgent(h) { h, _ in
            await h.set("_print_status", "idle")
            await h.handled.wait(for: .channel, count: 2)  // the list, the refused create
            #expect(manager.calls == ["list", "create"])
            await h.advance(by: 2)  // the back-off
            await h.handled.wait(for: .channel, count: 3)
            await h.agentStore.drain()
            let channel = try #require(try h.store.channels(environment: "sandbox").byPrinter[AgentHarness.printer])
            #expect(channel == "Y2hhbm5lbC1=")
            #expect(try h.store.followByChannel(deviceID: phone, printerPrefix: AgentHarness.printer))
            h.agent.inbox.devicesChanged()
            await h.handled.wait(for: .devicesChanged, count: 1)
            await h.startPrintAndLetItSettle()
            let broadcasts = h.sender.pushes.filter { $0.tokenKind == .channel }
            #expect(broadcasts.map(\.token) == [channel] && broadcasts.map(\.event) == [.update])
            #expect(h.logs.messages(.notice).contains("a channel management request is tried again after a back-off"))
        }
    }

    @Test func aRefusedBroadcastForgetsTheChannelAndMakesAnother() async throws {
        let manager = ScriptedChannels()
        let sender = RecordingSender()
        let h = try AgentHarness(sender: sender, channels: manager)
        let phone = try #require(try h.store.devices().first).id
        try await withAgent(h) { h, _ in
            await h.set("_print_status", "idle")
            await h.handled.wait(for: .channel, count: 2)
            await h.agentStore.drain()
            _ = try h.store.followByChannel(deviceID: phone, printerPrefix: AgentHarness.printer)
            h.agent.inbox.devicesChanged()
            await h.handled.wait(for: .devicesChanged, count: 1)
            // The start's alert to the phone, then the start's broadcast.
            sender.script(.delivered(apnsID: "alert"), .rejected(status: 400, reason: .channelNotRegistered, tokenAction: .remove))
            await h.startPrintAndLetItSettle()
            await h.handled.wait(for: .channel, count: 3)
            await h.agentStore.drain()
            #expect(manager.calls == ["list", "create", "create"])
            #expect(try h.store.channels(environment: "sandbox").byPrinter[AgentHarness.printer] == "Y2hhbm5lbC2=")
            #expect(try h.store.devices().first?.apnsToken == AgentHarness.phone, "no phone is touched")
            #expect(sender.pushes.prefix(2).map(\.tokenKind) == [.device, .channel])
        }
    }
}
