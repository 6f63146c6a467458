import EventReplay
import PrintBridgeCore
import TestSupport
import Testing

/// `replay --send`'s window: what a phone and the output see, whatever order
/// APNs answers in.
@Suite struct SendWindowTests {
    /// Drives a window to the end, answering the pushes in flight in an
    /// order the seed picks; checks every rule at every step.
    func drive(tokens: [String], due: [Double], limit: Int, seed: UInt64) -> (order: [Int], maximumInFlight: Int) {
        var window = SendWindow<String>(tokens: tokens, due: due.map { EpochTime(seconds: $0) }, limit: limit)
        var random = SplitMix(seed: seed)
        var now = 0.0
        var inFlight: [Int] = []
        var handedBack: [Int] = []
        var maximumInFlight = 0
        var started = 0
        while !window.isDone {
            while let index = window.start(at: EpochTime(seconds: now)) {
                #expect(index == started, "started in the recording's order")
                started += 1
                #expect(due[index] <= now, "push \(index) started before it was due")
                #expect(!inFlight.contains { tokens[$0] == tokens[index] }, "two pushes to \(tokens[index]) in flight")
                inFlight.append(index)
            }
            maximumInFlight = max(maximumInFlight, inFlight.count)
            #expect(inFlight.count <= limit)
            guard !inFlight.isEmpty else {
                // Nothing out: time moves on to the next push's time.
                guard let next = window.nextDue else {
                    Issue.record("not done, yet nothing in flight and nothing to start")
                    break
                }
                now = max(now, next.seconds)
                continue
            }
            let answered = inFlight.remove(at: Int(random.next() % UInt64(inFlight.count)))
            window.finish(answered, "outcome \(answered)")
            while let (index, outcome) = window.nextInOrder() {
                #expect(outcome == "outcome \(index)")
                handedBack.append(index)
            }
        }
        return (handedBack, maximumInFlight)
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func aFanOutKeepsEachPhonesOrderAndTheRecordingsOrder(seed: UInt64) {
        // Four events to 300 phones, all due at once: the plan's shape (event by event, phone by phone).
        let phones = (0..<300).map { "phone\($0)" }
        let tokens = (0..<4).flatMap { _ in phones }
        let result = drive(tokens: tokens, due: Array(repeating: 0, count: tokens.count), limit: 100, seed: seed)
        #expect(result.order == Array(0..<tokens.count), "outcomes in the recording's order, each once")
        #expect(result.maximumInFlight == 100, "the window is used whole")
    }

    @Test func aPhonesNextPushWaitsForItsEarlierOne() {
        // One phone's three pushes between others': never two of its own out together.
        let tokens = ["a", "b", "a", "c", "a", "d"]
        for seed in 1...20 as ClosedRange<UInt64> {
            let result = drive(tokens: tokens, due: Array(repeating: 0, count: tokens.count), limit: 10, seed: seed)
            #expect(result.order == Array(0..<tokens.count))
            #expect(result.maximumInFlight >= 2)
        }
        // At the start b goes beside the first a; the second a waits, and so everything after it.
        var window = SendWindow<Int>(tokens: tokens, due: Array(repeating: EpochTime(seconds: 0), count: tokens.count))
        let now = EpochTime(seconds: 0)
        #expect([window.start(at: now), window.start(at: now), window.start(at: now)] == [0, 1, nil])
        window.finish(1, 0)
        #expect(window.nextInOrder() == nil, "b's outcome waits for a's")
        #expect(window.start(at: now) == nil, "a's first push is still out")
        window.finish(0, 0)
        #expect(window.nextInOrder()?.index == 0)
        #expect(window.nextInOrder()?.index == 1)
        #expect(window.nextInOrder() == nil)
        #expect([window.start(at: now), window.start(at: now), window.start(at: now)] == [2, 3, nil])
    }

    @Test func nothingStartsBeforeItIsDue() {
        var window = SendWindow<Int>(tokens: ["a", "b", "c"], due: [0, 5, 5].map { EpochTime(seconds: $0) })
        #expect(window.start(at: EpochTime(seconds: 1)) == 0)
        #expect(window.start(at: EpochTime(seconds: 1)) == nil, "b is due at 5")
        #expect(window.nextDue == EpochTime(seconds: 5))
        window.finish(0, 7)
        #expect(window.nextInOrder()?.outcome == 7)
        #expect(window.start(at: EpochTime(seconds: 5)) == 1)
        #expect(window.start(at: EpochTime(seconds: 5)) == 2)
        window.finish(2, 9)
        #expect(window.nextInOrder() == nil, "c's outcome waits for b's")
        window.finish(1, 8)
        #expect(window.nextInOrder()?.outcome == 8)
        #expect(window.nextInOrder()?.outcome == 9)
        #expect(window.isDone)
    }

    @Test func anEmptyPlanIsDoneAtOnce() {
        let window = SendWindow<Int>(tokens: [], due: [])
        #expect(window.isDone)
        #expect(window.nextDue == nil)
    }
}
