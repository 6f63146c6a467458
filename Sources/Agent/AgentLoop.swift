import ControlAPI
import HomeAssistantLink
import Logging
import PrintBridgeCore

/// The agent's state and what each input does to it. Used by the one task
/// that reads the agent's input stream, so it needs no locks.
///
/// Every push the pipeline makes goes into the outbox (in memory and, in
/// the same store transaction as the printer memory that made it, on disk)
/// and out to the sender at once; it leaves the outbox only when the sender
/// has answered it for good or it expired. `Outbox` holds the rules.
final class AgentLoop<LinkEvents: AsyncSequence & Sendable>
where LinkEvents.Element == LinkEvent, LinkEvents.Failure == Never {
    private let agent: Agent<LinkEvents>
    private var pipeline: PrinterPipeline
    private var outbox: Outbox
    private var lastSequence: Int
    /// Pushes handed to the sender and not yet answered.
    private var inFlight = 0
    private var trimAt: EpochTime?
    /// The link's stream has ended: waiting for answers until `graceEnd`.
    private var draining = false
    private var graceEnd: EpochTime?
    private(set) var isFinished = false
    private var publishedChanges = -1
    /// Pictures asked for and the held alerts waiting for each, by request.
    private var snapshotRequests: [Int: [Outbox.Entry]] = [:]
    private var lastSnapshotRequest = 0
    /// The wake-up asked for, and the task sleeping until it.
    private var wakeAt: EpochTime?
    private var wake: Task<Void, Never>?
    /// Each printer's broadcast channel (nil: none are made).
    private let channels: ChannelRunner?
    /// How many printers the cache had when the channels last heard of them.
    private var printersTold = 0

    private var logger: Logger { agent.logger }
    private var clock: any AgentClock { agent.clock }

    init(agent: Agent<LinkEvents>, start: AgentStore.Start, channels: ChannelRunner? = nil) {
        self.agent = agent
        self.channels = channels
        var planner = PushPlanner(configuration: agent.planner, restoring: start.printers)
        planner.watchingSince = start.watchingSince
        planner.heldAlerts = start.held
        planner.retells = start.retells
        planner.channels = channels?.channels ?? [:]
        pipeline = PrinterPipeline(planner: planner, devices: start.devices, clock: agent.clock)
        let retry = agent.configuration.retryMaximum
        outbox = Outbox(firstRetryDelay: min(2, retry), maximumRetryDelay: retry)
        // Sequences continue after the highest the store kept.
        lastSequence = start.outbox.map(\.sequence).max() ?? 0
        updateCounts()
        if !start.outbox.isEmpty {
            logger.info("sending push(es) kept from before the restart",
                        metadata: ["outbox.count": .stringConvertible(start.outbox.count)])
            carryOut(outbox.restore(start.outbox, now: clock.now()))
        }
        channels?.startDue(now: clock.now())
    }

    func handle(_ input: AgentInput) async {
        switch input {
        case .link(let event):
            handle(event)
        case .linkEnded:
            // Once: the stream's own end after a shutdown that came first.
            guard !draining else { return }
            draining = true
            // Alerts waiting for their picture go now, without it: the grace
            // period is for their answers, and none is left behind.
            carryOut(outbox.releaseAll(now: clock.now()))
            if inFlight == 0 {
                isFinished = true
            } else {
                graceEnd = clock.now() + agent.configuration.shutdownGrace
            }
        case .devicesChanged:
            do {
                pipeline.devices = try await agent.store.read { try $0.devicesAndActivities() }
                logger.debug("devices reloaded", metadata: ["devices.count": .stringConvertible(pipeline.devices.count)])
                updateCounts()
            } catch {
                logger.error("devices could not be read back from the store",
                             metadata: ["store.path": "\(agent.store.path)", "error": "\(error)"])
            }
        case .settings(let configuration):
            pipeline.reconfigure(configuration)
        case .answered(let entry, let outcome, let seconds):
            answered(entry, outcome, seconds: seconds)
        case .deadline(let time):
            if time == wakeAt { wakeAt = nil }
            deadline()
        case .snapshot(let request, let link):
            snapshotTaken(request, link: link)
        case .stored(let entries):
            stored(entries)
        case .alertOpened(let apnsID):
            if pipeline.opened(apnsID: apnsID) {
                logger.debug("an alert was opened: it is not told again", metadata: ["push.apns_id": "\(apnsID)"])
                agent.store.commit(retells: pipeline.planner.retells)
            }
        case .testPush(let deviceID, let done):
            guard !draining else { return done(.stopping) }
            guard let (output, language) = pipeline.testPush(to: deviceID) else { return done(.noPhone) }
            let queued = deliver(output)
            done(queued.first.map { .queued($0.push, language: language) } ?? .noPhone)
        case .channel(let operation, let answer):
            if channels?.finished(operation, answer, now: clock.now()) == true { useChannels() }
        }
    }

    /// The planner sends broadcasts to the channels as they are now.
    private func useChannels() {
        guard let channels else { return }
        pipeline.setChannels(channels.channels)
    }

    /// The printers in an HA update, for their channels: a snapshot is
    /// HA's whole list (a printer missing from it long enough is gone).
    private func noteChannelPrinters(_ inputs: [PrinterInput]) {
        guard let channels else { return }
        let now = clock.now()
        var changed = false
        for input in inputs {
            if case .snapshot(let matched) = input.kind {
                changed = channels.saw(Set(matched.map(\.match.prefix)), complete: true, now: now) || changed
            }
        }
        // A new printer (the cache never forgets one): no set made an event otherwise.
        if pipeline.cache.printers.count != printersTold {
            printersTold = pipeline.cache.printers.count
            changed = channels.saw(Set(pipeline.cache.printers.keys), complete: false, now: now) || changed
        }
        if changed { useChannels() }
    }

    private func handle(_ event: LinkEvent) {
        switch event {
        case .printers where draining:
            break  // shutting down: no new events are taken
        case .printers(let inputs):
            for input in inputs {
                deliver(pipeline.fireDue(upTo: clock.now()))
                deliver(pipeline.handle(input))
            }
            noteChannelPrinters(inputs)
            publishPrinters()
        case .bulkHandled:
            // The multi-MB snapshot or a huge message: its memory goes back
            // shortly, once the link has let go of it too.
            if trimAt == nil { trimAt = clock.now() + agent.configuration.trimDelay }
        case .connected:
            agent.metrics.haConnected()
            LinkNews.log(event, endpoint: agent.configuration.endpoint, logger)
        case .disconnected:
            agent.metrics.haDisconnected()
            LinkNews.log(event, endpoint: agent.configuration.endpoint, logger)
        case .notice:
            LinkNews.log(event, endpoint: agent.configuration.endpoint, logger)
        case .received:
            break
        }
    }

    /// A deadline came: whatever is due now.
    private func deadline() {
        let now = clock.now()
        if let trimAt, now >= trimAt {
            self.trimAt = nil
            agent.hooks.releaseMemory()
        }
        if draining {
            if let graceEnd, now >= graceEnd { isFinished = true }
            return
        }
        deliver(pipeline.fireDue(upTo: now))
        publishPrinters()
        carryOut(outbox.due(at: now))
        channels?.startDue(now: now)
    }

    /// Asks to be woken at the next deadline (an earlier one replaces the
    /// wake-up asked for; a later one waits for it, which then asks again).
    func scheduleWake(afterWake: Bool) {
        let deadlines = draining ? [trimAt, graceEnd] : [pipeline.nextDue, outbox.nextDeadline, trimAt, channels?.nextDeadline]
        guard var next = deadlines.compactMap({ $0 }).min() else { return }
        // A deadline already past right after the wake-up that handled it
        // would be a busy loop: never sooner than 50 ms after a wake-up.
        if afterWake, next <= clock.now() { next = clock.now() + 0.05 }
        if let wakeAt, wakeAt <= next { return }
        wake?.cancel()
        wakeAt = next
        let clock = agent.clock, inbox = agent.inbox
        wake = Task {
            do { try await clock.sleep(until: next) } catch { return }
            inbox.send(.deadline(next))
        }
    }

    /// After the stream: what the sender has not answered stays in the store
    /// (the sender, a service of its own, is shut down after the agent).
    func finish() {
        wake?.cancel()
        if outbox.count > 0 {
            logger.info("push(es) kept in the outbox for the next start",
                        metadata: ["outbox.count": .stringConvertible(outbox.count)])
        }
        logger.info("stopped")
    }

    // MARK: - Pushes

    /// A pipeline output: logged, its memory and pushes saved together, the
    /// pushes sent. Returns the outbox entries made.
    @discardableResult
    private func deliver(_ output: PrinterPipeline.Output) -> [Outbox.Entry] {
        for failure in output.failures {
            logger.error("a printer update could not be used", metadata: ["error": "\(failure)"])
        }
        for print in output.prints { PushLog.printEnded(print, logger) }
        for push in output.limited {
            PushLog.limited(push, logger)
            agent.metrics.push(push, outcome: "limited")
        }
        guard !output.pushes.isEmpty || !output.changedPrinters.isEmpty || !output.prints.isEmpty
            || !output.endedActivities.isEmpty || output.heldChanged || output.retellsChanged
        else { return [] }
        let states = pipeline.planner.printers.filter { output.changedPrinters.contains($0.key) }
        let now = clock.now()
        let entries = output.pushes.map { push -> Outbox.Entry in
            var push = push
            // One apns-id for every attempt, across restarts too.
            if push.apnsID == nil { push.apnsID = Push.randomID() }
            lastSequence += 1
            return Outbox.Entry(sequence: lastSequence, push: push)
        }
        var actions = Outbox.Actions()
        let waiting = askForSnapshots(entries, now: now)
        // A silent push tells the app a print is in its history: it waits
        // until the store has written the record (`stored`), at most
        // `recordWait`, else an app that asks at once may not find it.
        let announcing = entries.filter { $0.push.kind == .background }
        for entry in entries {
            var hold = waiting.contains(entry.sequence) ? now + agent.hooks.snapshotTimeout : nil
            if entry.push.kind == .background { hold = now + Self.recordWait }
            actions.merge(outbox.add(entry, now: now, holdUntil: hold))
        }
        // The requests go to the APNs thread before the store's thread is
        // woken: on a busy core, the thread woken first ran its commit
        // (~0.4 ms of SQLite) before the request left (daemon_benchmark.py's
        // wire latency). Nothing is reordered in the store: the commit below
        // is queued before this loop can read any answer and settle them.
        send(actions.send)
        actions.send = []
        agent.store.commit(
            states: states, prints: output.prints, endedActivities: output.endedActivities, enqueue: entries,
            held: output.heldChanged ? pipeline.planner.heldAlerts : nil,
            retells: output.retellsChanged ? pipeline.planner.retells : nil)
        if !announcing.isEmpty {
            // The store's queue runs in order: this comes once the commit is written.
            let inbox = agent.inbox
            agent.store.write("could not tell the agent a print was recorded") { _ in inbox.send(.stored(announcing)) }
        }
        carryOut(actions)
        return entries
    }

    /// Seconds a silent push waits at most for its print's record to be
    /// written (a stalled disk): it holds up the phone's later pushes.
    static var recordWait: Double { 5 }

    /// The store wrote the change these held pushes announce: they go.
    private func stored(_ entries: [Outbox.Entry]) {
        let now = clock.now()
        var actions = Outbox.Actions()
        for entry in entries {
            actions.merge(outbox.release(entry.sequence, token: entry.push.token, payload: nil, now: now).actions)
        }
        carryOut(actions)
    }

    // MARK: - Pictures

    /// Asks for one picture per printer for the alerts that want one; returns
    /// the sequences to hold until it comes or `snapshotTimeout` is over.
    private func askForSnapshots(_ entries: [Outbox.Entry], now: EpochTime) -> Set<Int> {
        guard let take = agent.hooks.takeSnapshot, !draining else { return [] }
        let wanting = Dictionary(grouping: entries.filter(\.push.wantsSnapshot), by: \.push.printerPrefix)
        var held: Set<Int> = []
        for (printer, alerts) in wanting.sorted(by: { $0.key < $1.key }) {
            lastSnapshotRequest += 1
            let request = lastSnapshotRequest, inbox = agent.inbox
            snapshotRequests[request] = alerts
            held.formUnion(alerts.map(\.sequence))
            Task { inbox.send(.snapshot(request: request, link: await take(printer, now))) }
        }
        return held
    }

    /// A picture came (or none): the alerts still held go, with it when it
    /// fits; those whose hold ended already went without.
    private func snapshotTaken(_ request: Int, link: String?) {
        guard let alerts = snapshotRequests.removeValue(forKey: request) else { return }
        let now = clock.now()
        var actions = Outbox.Actions()
        for entry in alerts {
            let payload = link.flatMap { AlertPayload.addingSnapshot(link: $0, to: entry.push.payload) }
            let (released, sent) = outbox.release(entry.sequence, token: entry.push.token, payload: payload, now: now)
            guard released else { continue }
            if let payload, let link {
                agent.store.write("could not record an alert's picture") { store in
                    try store.attachSnapshot(sequence: entry.sequence, apnsID: entry.push.apnsID, payload: payload, link: link)
                }
            }
            actions.merge(sent)
        }
        carryOut(actions)
    }

    private func carryOut(_ actions: Outbox.Actions, answer: (sequence: Int, outcome: PushOutcome)? = nil) {
        if !actions.settled.isEmpty {
            // A settled alert's outcome goes to the phone's history with it.
            agent.store.commit(
                settled: actions.settled.map(\.entry.sequence), outcomes: actions.settled.compactMap(SentNotification.Settled.init))
            for settled in actions.settled { report(settled, answer: answer) }
        }
        send(actions.send)
        agent.metrics.outbox(count: outbox.count, oldest: outbox.oldest)
    }

    /// Hands the entries to the sender as one batch; each outcome comes
    /// back to the inbox from the sender's thread (`OutcomesToInbox`).
    private func send(_ entries: [Outbox.Entry]) {
        guard !entries.isEmpty else { return }
        inFlight += entries.count
        let receiver = OutcomesToInbox(entries: entries, inbox: agent.inbox)
        agent.sender.send(entries.indices.map { TaggedPush(entries[$0].push, tag: $0) }, to: receiver)
    }

    private func answered(_ entry: Outbox.Entry, _ outcome: PushOutcome, seconds: Double) {
        inFlight -= 1
        let actions = outbox.answered(entry, outcome, now: clock.now())
        agent.metrics.attempt(answered: outcome.isAnswered, apnsSeconds: seconds)
        switch outcome {
        case .delivered:
            if agent.sender.deliveryKind == .apns { PushLog.outcome(entry.push, outcome, logger) }
        case .rejected(_, _, let action):
            PushLog.outcome(entry.push, outcome, logger)
            if action != nil, entry.push.tokenKind == .channel {
                // The channel is gone: a new one is made; the activities on the old one hear no more.
                if channels?.broadcastRefused(channel: entry.push.token, now: clock.now()) == true { useChannels() }
            } else if let action {
                stopUsing(token: entry.push.token, action)
            }
        case .gaveUp(let cause, let attempts):
            var metadata = PushLog.metadata(entry.push)
            metadata["apns.reason"] = "\(cause)"
            metadata["push.attempts"] = .stringConvertible(attempts)
            metadata["outbox.count"] = .stringConvertible(outbox.count)
            if let retryAt = outbox.nextDeadline {
                metadata["outbox.retry_in"] = .stringConvertible(max(0, Int((retryAt - clock.now()).rounded(.up))))
            }
            logger.warning("APNs did not answer; the push stays in the outbox and is retried", metadata: metadata)
        }
        carryOut(actions, answer: (entry.sequence, outcome))
        if draining, inFlight == 0 { isFinished = true }
    }

    /// APNs's verdict on a token: the pipeline and the store stop using it.
    private func stopUsing(token: String, _ action: PushOutcome.TokenAction) {
        for change in pipeline.applyTokenRejection(token: token, action: action) {
            logger.warning("a refused token is no longer used", metadata: ["token.action": "\(action.rawValue)", "token.change": "\(change)"])
        }
        agent.store.write("could not record the refused token") { store in
            try store.applyTokenRejection(token: token, action: action)
        }
        updateCounts()
    }

    /// Counts and logs a push leaving the outbox; `answer` is the sender's
    /// answer that settled it, when it was this push's own.
    private func report(_ settled: Outbox.Actions.Settled, answer: (sequence: Int, outcome: PushOutcome)?) {
        let push = settled.entry.push
        let metrics = agent.metrics
        switch settled.settlement {
        case .delivered, .rejected:
            if let answer, answer.sequence == settled.entry.sequence {
                let name = answer.outcome.isDelivered ? agent.sender.deliveryKind.outcomeName : answer.outcome.name
                metrics.push(push, outcome: name, reason: answer.outcome.metricReason)
            } else {
                // Waiting behind a push whose token APNs refused for good.
                metrics.push(push, outcome: "rejected", reason: "TokenRefused")
                logger.warning("push dropped: APNs refused its token", metadata: PushLog.metadata(push))
            }
        case .expired:
            metrics.push(push, outcome: "expired")
            var metadata = PushLog.metadata(push)
            metadata["push.made_at"] = "\(ISO8601.format(push.createdAt))"
            logger.error("push expired before APNs could take it", metadata: metadata)
        case .superseded:
            metrics.push(push, outcome: "superseded")
            logger.info("Live Activity update superseded by a newer one while APNs was away", metadata: PushLog.metadata(push))
        }
    }

    // MARK: - What others see

    /// The API's view of the printers, when a printer changed.
    private func publishPrinters() {
        let changes = pipeline.statistics.printerChanges
        guard changes != publishedChanges else { return }
        publishedChanges = changes
        agent.hooks.publishPrinters(pipeline.cache.printers.keys.sorted().compactMap { pipeline.cache[$0] })
        updateCounts()
    }

    private func updateCounts() {
        agent.metrics.update(
            printers: pipeline.cache.printers.count, devices: pipeline.devices.filter(\.receivesAlerts).count)
    }
}

extension DeliveryKind {
    /// A delivered push's outcome in metrics.
    var outcomeName: String {
        switch self {
        case .apns: return "delivered"
        case .dryRun: return "dry_run"
        }
    }
}

/// Puts each outcome of one batch into the agent's inbox, with how long
/// APNs took: called on the sender's thread, straight from the answer.
private final class OutcomesToInbox: PushOutcomeReceiver {
    let entries: [Outbox.Entry]
    let inbox: AgentInbox
    let started = MonotonicClock.seconds()

    init(entries: [Outbox.Entry], inbox: AgentInbox) {
        self.entries = entries
        self.inbox = inbox
    }

    func received(_ outcome: PushOutcome, tag: Int) {
        inbox.send(.answered(entries[tag], outcome, seconds: MonotonicClock.seconds() - started))
    }
}
