import Testing
@testable import PrintBridgeCore

@Suite struct PrinterCacheTests {
    var cache = PrinterCache()

    mutating func apply(_ field: PrinterField, _ value: String, attributes: [String: JSONValue] = [:]) -> PrinterChange? {
        cache.apply(EntityMatch(prefix: "x1c", field: field), state: HA.state("sensor.x1c_f", value, attributes: attributes))
    }

    @Test mutating func noInformationNeverOverwritesAKnownValue() {
        _ = apply(.status, "running")
        _ = apply(.progress, "42")
        _ = apply(.remainingTime, "30", attributes: ["unit_of_measurement": "min"])
        let silent = apply(.status, "unavailable")
        #expect(silent?.current.silentSince != nil, "the printer went quiet")
        var known = silent?.current
        known?.silentSince = nil
        #expect(known == silent?.previous, "and nothing known changed")
        for junk in ["unknown", "offline", "", "garbage"] {
            #expect(apply(.status, junk) == nil)
        }
        for junk in ["unavailable", "unknown", "NaN", "150", "-1"] {
            #expect(apply(.progress, junk) == nil)
        }
        #expect(apply(.remainingTime, "soon", attributes: ["unit_of_measurement": "min"]) == nil)
        #expect(cache["x1c"]?.status == .running)
        #expect(cache["x1c"]?.progress == 42)
        #expect(cache["x1c"]?.remainingSeconds == 1800)
    }

    /// Back with the status it had, only the silence ends: when the status
    /// last changed stays (a print's id and times derive from it).
    @Test mutating func backWithTheSameStatusOnlyEndsTheSilence() {
        _ = cache.apply(EntityMatch(prefix: "x1c", field: .status), state: HA.state("sensor.x1c_f", "running", at: 100))
        _ = cache.apply(
            EntityMatch(prefix: "x1c", field: .status), state: HA.state("sensor.x1c_f", "unavailable", at: 200),
            at: EpochTime(seconds: 200))
        #expect(cache["x1c"]?.silentSince == EpochTime(seconds: 200))
        let back = cache.apply(
            EntityMatch(prefix: "x1c", field: .status), state: HA.state("sensor.x1c_f", "running", at: 300))
        #expect(back?.current.silentSince == nil)
        #expect(back?.current.changedAt[.status] == EpochTime(seconds: 100))
        #expect(back?.current.status == .running)
    }

    @Test mutating func repeatedValuesAreNotChanges() {
        #expect(apply(.progress, "10") != nil)
        #expect(apply(.progress, "10") == nil)
        #expect(apply(.progress, "10.0") == nil)
    }

    @Test mutating func aFailedPrintWithBambusCancelCodeIsCancelled() {
        _ = apply(.status, "running")
        _ = apply(.error, "on", attributes: ["code": .string("0300_400C")])
        let change = apply(.status, "failed")
        #expect(change?.current.status == .cancelled)
        // The error clearing for the next print clears the code.
        _ = apply(.error, "off")
        #expect(cache["x1c"]?.errorCode == nil)
    }

    @Test mutating func displayNameComesFromTheStatusEntity() {
        _ = apply(.status, "idle", attributes: ["friendly_name": "Workshop X1C Print status"])
        #expect(cache["x1c"]?.displayName == "Workshop X1C")
    }

    @Test mutating func fileNameFallsBackInOrder() {
        _ = apply(.gcodeFilename, "/cache/plate_1.gcode")
        #expect(cache["x1c"]?.fileName == "/cache/plate_1.gcode")
        _ = apply(.subtaskName, "benchy")
        #expect(cache["x1c"]?.fileName == "benchy")
        _ = apply(.taskName, "benchy.3mf")
        #expect(cache["x1c"]?.fileName == "benchy.3mf")
    }

    @Test func contentStateUsesRealFinalValues() {
        var snapshot = PrinterSnapshot(prefix: "x1c")
        snapshot.progress = 99.6
        snapshot.currentLayer = 248
        snapshot.totalLayers = 250
        snapshot.remainingSeconds = 60
        snapshot.nozzleTemp = 219.6
        snapshot.bedTemp = 64.4
        let running = snapshot.contentState(status: .running)
        #expect(running.progress == 99 && running.currentLayer == 248 && running.nozzleTemp == 220 && running.bedTemp == 64)
        let complete = snapshot.contentState(status: .complete)
        #expect(complete.progress == 100 && complete.currentLayer == 250 && complete.remainingSeconds == 0)
        #expect(complete.nozzleTemp == 220 && complete.bedTemp == 64 && complete.status == "complete")
        let failed = snapshot.contentState(status: .failed)
        #expect(failed.progress == 99 && failed.currentLayer == 248 && failed.remainingSeconds == 0 && failed.status == "failed")
    }
}
