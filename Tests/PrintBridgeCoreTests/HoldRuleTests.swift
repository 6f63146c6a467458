import Testing
@testable import PrintBridgeCore

/// Which new status is held back how long (`HoldRule`): a pure table.
@Suite struct HoldRuleTests {
    typealias C = HoldRule.Circumstances

    static let allCircumstances: [C] = (0..<8).map { C(rawValue: UInt8($0)) }

    func hold(_ from: PrintStatus, _ to: PrintStatus, _ circumstances: C = []) -> HoldRule.Window? {
        HoldRule.rule(from: from, to: to, given: circumstances)?.window
    }

    @Test func eachHeldMoveAndItsWindow() {
        // A start settles, from anything but a pause (a resume is told at once).
        for from in [PrintStatus.idle, .complete, .failed, .cancelled, .preparing] {
            #expect(hold(from, .running) == .startSettle)
        }
        #expect(hold(.paused, .running) == nil)
        // A failure waits for a cancel code only where one may follow it.
        for from in [PrintStatus.running, .paused, .preparing] {
            #expect(hold(from, .failed) == nil)
            #expect(hold(from, .failed, .failureMayBeCancel) == .cancel)
            #expect(hold(from, .failed, [.failureMayBeCancel, .failureAnnounced]) == .announcedFailure)
            #expect(hold(from, .failed, .failureAnnounced) == nil)
        }
        // A pause waits for its reason.
        #expect(hold(.running, .paused) == .reason)
        #expect(hold(.preparing, .paused) == .reason)
        // Idle or preparing mid-print may be a flicker (the file is kept) …
        for (from, to) in [(PrintStatus.running, PrintStatus.idle), (.paused, .idle), (.running, .preparing), (.paused, .preparing)] {
            let rule = HoldRule.rule(from: from, to: to, given: [])
            #expect(rule?.window == .flicker && rule?.keepsFile == true)
        }
        // … unless idle is how the integration shows an end: its progress follows.
        let end = HoldRule.rule(from: .running, to: .idle, given: .idleEndsPrint)
        #expect(end?.window == .reason && end?.keepsFile == false)
        #expect(hold(.paused, .idle, .idleEndsPrint) == .reason)
        #expect(hold(.running, .preparing, .idleEndsPrint) == .flicker)
        // Ends and a resume are told at once.
        for to in [PrintStatus.complete, .cancelled] { #expect(hold(.running, to) == nil) }
        #expect(hold(.preparing, .idle) == nil)
    }

    /// The table decides every move exactly as the switch it replaced did.
    @Test func theTableIsTheSwitchItReplaced() {
        func switched(_ last: PrintStatus, _ status: PrintStatus, _ c: C) -> (HoldRule.Window, Bool)? {
            switch (last, status) {
            case (_, .running) where Transition(from: last, to: status) == .started: return (.startSettle, false)
            case (.running, .failed), (.paused, .failed), (.preparing, .failed):
                if !c.contains(.failureMayBeCancel) { return nil }
                return c.contains(.failureAnnounced) ? (.announcedFailure, false) : (.cancel, false)
            case (.running, .idle) where c.contains(.idleEndsPrint), (.paused, .idle) where c.contains(.idleEndsPrint):
                return (.reason, false)
            case (.running, .paused), (.preparing, .paused): return (.reason, false)
            case (.running, .idle), (.paused, .idle), (.running, .preparing), (.paused, .preparing): return (.flicker, true)
            default: return nil
            }
        }
        for last in PrintStatus.allCases {
            for status in PrintStatus.allCases where status != last {
                for c in Self.allCircumstances {
                    let rule = HoldRule.rule(from: last, to: status, given: c)
                    let expected = switched(last, status, c)
                    #expect(rule?.window == expected?.0 && (rule?.keepsFile ?? false) == (expected?.1 ?? false),
                        "\(last) → \(status), \(c.rawValue)")
                }
            }
        }
    }

    @Test func everyRowIsReachableAndHoldsATransition() {
        for (index, row) in HoldRule.table.enumerated() {
            #expect(!row.from.isEmpty && !row.to.isEmpty)
            var reached = false
            for from in row.from {
                for to in row.to {
                    // Only a move the planner can act on is worth holding.
                    #expect(Transition(from: from, to: to) != nil, "row \(index): \(from) → \(to)")
                    if HoldRule.rule(from: from, to: to, given: row.requires) == row { reached = true }
                }
            }
            #expect(reached, "row \(index) is shadowed by an earlier one")
        }
    }

    @Test func windowsComeFromTheConfiguration() {
        let configuration = PlannerConfiguration(
            startSettle: 4, cancelWindow: 9, flickerWindow: 50, reasonWindow: 2, announcedFailureWait: 1.5)
        #expect(HoldRule.Window.allCases.map { $0.seconds(in: configuration) } == [4, 9, 1.5, 2, 50])
        // An announced failure never waits longer than the cancel window.
        let short = PlannerConfiguration(cancelWindow: 0.5, announcedFailureWait: 1)
        #expect(HoldRule.Window.announcedFailure.seconds(in: short) == 0.5)
    }

    @Test func circumstancesComeFromTheProfile() {
        #expect(C(profile: .bambuLab, failureAnnounced: false) == .failureMayBeCancel)
        #expect(C(profile: .bambuLab, failureAnnounced: true) == [.failureMayBeCancel, .failureAnnounced])
        #expect(C(profile: .octoPrint, failureAnnounced: false) == .idleEndsPrint)
        #expect(C(profile: .moonraker, failureAnnounced: false) == [])
    }
}
