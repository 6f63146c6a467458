import Testing
@testable import PrintBridgeCore

@Suite struct PrintStatusTests {
    @Test(arguments: [
        ("running", PrintStatus.running), ("printing", .running), ("PRINTING", .running), (" Running ", .running),
        ("pause", .paused), ("paused", .paused),
        ("finish", .complete), ("finished", .complete), ("complete", .complete), ("completed", .complete),
        ("failed", .failed), ("error", .failed),
        ("cancelled", .cancelled), ("canceled", .cancelled),
        ("prepare", .preparing), ("slicing", .preparing), ("init", .preparing), ("starting", .preparing),
        ("idle", .idle), ("standby", .idle), ("ready", .idle),
    ])
    func normalisesKnownStates(raw: String, status: PrintStatus) {
        #expect(PrintStatus(raw: raw) == status)
    }

    @Test(arguments: ["unavailable", "unknown", "offline", "", "  ", "garbage", "42", "run"])
    func statesWithoutInformationAreNotStatuses(raw: String) {
        #expect(PrintStatus(raw: raw) == nil)
    }
}

@Suite struct EntityValueTests {
    @Test func progressIsZeroToHundred() {
        #expect(EntityValue.progress("0") == 0)
        #expect(EntityValue.progress("45.5") == 45.5)
        #expect(EntityValue.progress("100") == 100)
        for garbage in ["101", "-1", "150", "NaN", "nan", "inf", "0x20", "", "unknown", "12%", "1,5"] {
            #expect(EntityValue.progress(garbage) == nil, "\(garbage)")
        }
    }

    @Test(arguments: [
        ("90", "min", 5400), ("1.5", "h", 5400), ("5400", "s", 5400), ("90", nil, 5400), ("0.25", "d", 21600),
        ("0", "min", 0), ("1.05", "h", 3780),
    ] as [(String, String?, Int)])
    func remainingTimeIsConvertedToSeconds(state: String, unit: String?, seconds: Int) {
        #expect(EntityValue.remainingSeconds(state, unit: unit) == seconds)
    }

    @Test func remainingTimeGarbageIsRejected() {
        #expect(EntityValue.remainingSeconds("-5", unit: "min") == nil)
        #expect(EntityValue.remainingSeconds("soon", unit: "min") == nil)
        #expect(EntityValue.remainingSeconds("5", unit: "fortnights") == nil)
    }

    @Test func countsAndTemperatures() {
        #expect(EntityValue.count("120") == 120)
        #expect(EntityValue.count("120.0") == 120)
        #expect(EntityValue.count("12.5") == nil)
        #expect(EntityValue.count("-3") == nil)
        #expect(EntityValue.temperature("219.6") == 219.6)
        #expect(EntityValue.temperature("5000") == nil)
    }

    @Test func bambuErrorCodesInEveryNotation() {
        let cancelled = PrintStatus.bambuCancelledErrorCode
        #expect(EntityValue.errorCode(state: "50348044", attributes: [:]) == cancelled)
        #expect(EntityValue.errorCode(state: "on", attributes: ["code": .string("0300_400C")]) == cancelled)
        #expect(EntityValue.errorCode(state: "on", attributes: ["code": .string("0300400c")]) == cancelled)
        #expect(EntityValue.errorCode(state: "on", attributes: ["error_code": .number(50_348_044)]) == cancelled)
        #expect(EntityValue.errorCode(state: "0x0300400C", attributes: [:]) == cancelled)
        #expect(EntityValue.errorCode(state: "off", attributes: [:]) == nil)
        #expect(EntityValue.errorCode(state: "0", attributes: [:]) == nil)
    }
}

@Suite struct TransitionTests {
    @Test func startedFromAnyRestingStatus() {
        for from in [PrintStatus.idle, .complete, .failed, .cancelled, .preparing] {
            #expect(Transition(from: from, to: .running) == .started)
        }
    }

    @Test func theRestOfTheTable() {
        #expect(Transition(from: .paused, to: .running) == .resumed)
        #expect(Transition(from: .running, to: .paused) == .paused)
        for from in [PrintStatus.running, .paused] {
            #expect(Transition(from: from, to: .complete) == .complete)
            #expect(Transition(from: from, to: .failed) == .failed)
            #expect(Transition(from: from, to: .cancelled) == .cancelled)
        }
    }

    @Test func preparationEndsLikeARunningPrint() {
        #expect(Transition(from: .preparing, to: .failed) == .failed)
        #expect(Transition(from: .preparing, to: .cancelled) == .cancelled)
        #expect(Transition(from: .preparing, to: .paused) == .paused)
    }

    @Test func aPrintThatGoesIdleIsAbandoned() {
        for from in [PrintStatus.running, .paused] {
            #expect(Transition(from: from, to: .idle) == .abandoned)
            #expect(Transition(from: from, to: .preparing) == .abandoned)
        }
    }

    @Test func nonEventsAreNil() {
        #expect(Transition(from: .idle, to: .complete) == nil)
        #expect(Transition(from: .idle, to: .failed) == nil)
        #expect(Transition(from: .complete, to: .idle) == nil)
        #expect(Transition(from: .failed, to: .cancelled) == nil)
        #expect(Transition(from: .idle, to: .preparing) == nil)
    }
}
