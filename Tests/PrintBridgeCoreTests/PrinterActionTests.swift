import Testing
@testable import PrintBridgeCore

/// Which printer actions fit which status, and which button entity does
/// each for a printer (issue 31).
@Suite struct PrinterActionTests {
    @Test func eachActionFitsOnlyWhereThePrintersButtonIsAvailable() {
        // ha-bambulab's button.py: pause while RUNNING, resume while PAUSE, stop in either.
        let fitting: [PrinterAction: Set<PrintStatus>] = [
            .pause: [.running], .resume: [.paused], .stop: [.running, .paused, .preparing],
        ]
        for action in PrinterAction.allCases {
            for status in PrintStatus.allCases {
                #expect((action.refusal(status: status) == nil) == fitting[action]!.contains(status), "\(action) when \(status)")
            }
            #expect(action.refusal(status: nil) != nil, "\(action) with no status known")
        }
        #expect(PrinterAction.resume.refusal(status: .running) == "Only a paused print can be resumed; it is running")
    }

    @Test func buttonsAreFoundByNameInTheSnapshotCopyNumbersIncluded() {
        var matcher = EntityMatcher()
        let states = [
            HAState(entityID: "sensor.p1s_01p09c470200456_print_status", state: "running"),
            HAState(entityID: "button.p1s_01p09c470200456_pause_printing", state: "unknown"),
            HAState(entityID: "button.p1s_01p09c470200456_resume_printing", state: "unavailable"),
            HAState(entityID: "button.p1s_01p09c470200456_stop_printing", state: "unknown"),
            HAState(entityID: "sensor.octoprint_current_state", state: "Printing"),
            HAState(entityID: "button.octoprint_pause_job", state: "unknown"),
            HAState(entityID: "sensor.octoprint_current_state_2", state: "Printing"),
            HAState(entityID: "button.octoprint_stop_job_2", state: "unknown"),
            HAState(entityID: "button.kitchen_stop_job", state: "unknown"),
        ]
        matcher.learn(from: states)  // as the frame reader does with get_states
        #expect(matcher.button(.pause, printer: "p1s_01p09c470200456") == "button.p1s_01p09c470200456_pause_printing")
        #expect(matcher.button(.resume, printer: "p1s_01p09c470200456") == "button.p1s_01p09c470200456_resume_printing")
        #expect(matcher.button(.stop, printer: "p1s_01p09c470200456") == "button.p1s_01p09c470200456_stop_printing")
        #expect(matcher.button(.pause, printer: "octoprint") == "button.octoprint_pause_job")
        #expect(matcher.button(.resume, printer: "octoprint") == nil, "HA has none: nothing guessed")
        #expect(matcher.button(.stop, printer: "octoprint_2") == "button.octoprint_stop_job_2")
        #expect(matcher.buttons.keys.sorted() == ["octoprint", "octoprint_2", "p1s_01p09c470200456"])
    }

    /// A renamed device's buttons are its own by the registry's device id.
    @Test func theRegistryGivesAPrinterItsDevicesButtons() {
        var matcher = EntityMatcher()
        matcher.applyRegistry([
            EntityRegistryEntry(entityID: "sensor.werkstatt_druckstatus", platform: "bambu_lab", translationKey: "print_status", deviceID: "d1"),
            EntityRegistryEntry(entityID: "button.werkstatt_pause_printing", platform: "bambu_lab", translationKey: "pause", deviceID: "d1"),
            EntityRegistryEntry(entityID: "button.werkstatt_stop_printing", platform: "bambu_lab", translationKey: "stop", deviceID: "d1"),
            EntityRegistryEntry(entityID: "button.other_pause_printing", platform: "bambu_lab", translationKey: "pause", deviceID: "d2"),
        ])
        #expect(matcher.button(.pause, printer: "werkstatt") == "button.werkstatt_pause_printing")
        #expect(matcher.button(.stop, printer: "werkstatt") == "button.werkstatt_stop_printing")
        #expect(matcher.button(.resume, printer: "werkstatt") == nil)
    }
}

/// Which camera or image entity pictures a printer: the settings file's,
/// else the registry's (the printer's own device, the profile's best
/// first), else those named after the printer in the snapshot.
@Suite struct PrinterCameraTests {
    @Test func camerasAreFoundByNameInTheSnapshotBestFirst() {
        var matcher = EntityMatcher()
        matcher.learn(from: [
            HAState(entityID: "sensor.p1s_01p09c470200456_print_status", state: "running"),
            HAState(entityID: "image.p1s_01p09c470200456_cover_image", state: "2026-11-26T10:00:00+00:00"),
            HAState(entityID: "camera.p1s_01p09c470200456_camera", state: "idle"),
            HAState(entityID: "sensor.octoprint_current_state", state: "Printing"),
            HAState(entityID: "camera.octoprint_camera", state: "idle"),
            HAState(entityID: "camera.driveway", state: "idle"),
        ])
        #expect(matcher.cameras(printer: "p1s_01p09c470200456") == [
            "camera.p1s_01p09c470200456_camera", "image.p1s_01p09c470200456_cover_image",
        ])
        #expect(matcher.cameras(printer: "octoprint") == ["camera.octoprint_camera"])
        #expect(matcher.cameras(printer: "nothing") == [])
        #expect(!matcher.cameras.values.joined().contains("camera.driveway"), "another camera is nobody's printer's")
    }

    /// HA still setting its integrations up after a restart: the snapshot
    /// has the printer but not yet its camera, which comes in a
    /// state_changed event a little later. It is kept and
    /// pictures the printer from then on, in the profile's order; another
    /// camera stays nobody's. (Seen in RealHomeAssistantTests on a loaded
    /// machine: the finish's alert went without its picture.)
    @Test func aCameraThatComesAfterTheSnapshotIsUsedFromThen() throws {
        let printer = "p1s_01p09c470200456"
        var matcher = EntityMatcher()
        matcher.learn(from: [HAState(entityID: "sensor.\(printer)_print_status", state: "running")])
        #expect(matcher.cameras(printer: printer) == [])
        var reader = HAFrameReader(matcher: matcher)
        let version = reader.matcher.camerasVersion
        for entity in ["image.\(printer)_cover_image", "camera.\(printer)_camera", "camera.driveway", "camera.\(printer)_camera"] {
            let frame = Array(HAFrameReaderTests.event(entity, "idle").utf8)
            let messages = try frame.withUnsafeBytes { try reader.messages(in: $0) }
            #expect(messages.count == 1, "\(entity)")
            for message in messages { #expect(reader.inputs(from: message).isEmpty, "a camera is no printer reading") }
        }
        #expect(reader.matcher.cameras(printer: printer) == ["camera.\(printer)_camera", "image.\(printer)_cover_image"])
        #expect(reader.matcher.camerasVersion == version + 2, "each new one once")
        #expect(!reader.matcher.cameras.values.joined().contains("camera.driveway"))
        // A printer first seen in an event brings its cameras' ids too.
        var late = EntityMatcher()
        late.noteStatus(try #require(late.match(entityID: "sensor.x1c_00m09a350100123_print_status")))
        let noted = late.noteCamera(entityID: "camera.x1c_00m09a350100123_camera")
        #expect(noted)
        #expect(late.cameras(printer: "x1c_00m09a350100123") == ["camera.x1c_00m09a350100123_camera"])
    }

    @Test func aRenamedDevicesCamerasAreItsOwnByTheRegistryAUserNamedWebcamLast() {
        var matcher = EntityMatcher()
        matcher.applyRegistry([
            EntityRegistryEntry(entityID: "sensor.werkstatt_druckstatus", platform: "bambu_lab", translationKey: "print_status", deviceID: "d1"),
            EntityRegistryEntry(entityID: "image.werkstatt_titelbild", platform: "bambu_lab", translationKey: "cover_image", deviceID: "d1"),
            EntityRegistryEntry(entityID: "camera.werkstatt_camera", platform: "bambu_lab", translationKey: "camera", deviceID: "d1"),
            EntityRegistryEntry(entityID: "camera.other_camera", platform: "bambu_lab", translationKey: "camera", deviceID: "d2"),
            EntityRegistryEntry(entityID: "camera.garage", platform: "generic", translationKey: nil, deviceID: nil),
        ])
        let cameras = matcher.cameras(printer: "werkstatt")
        #expect(cameras.first == "camera.werkstatt_camera", "the profile's camera first")
        #expect(Set(cameras) == ["camera.werkstatt_camera", "image.werkstatt_titelbild"], "only its own device's")
    }

    @Test func theSettingsFilesCameraWinsAndPathsFollowTheDomain() throws {
        let mapped = MappedPrinter(prefix: "octoprint", profile: .octoPrint, entities: [:], camera: "camera.garage")
        var matcher = EntityMatcher(mapped: [mapped])
        matcher.learn(from: [
            HAState(entityID: "sensor.octoprint_current_state", state: "Printing"),
            HAState(entityID: "camera.octoprint_camera", state: "idle"),
        ])
        #expect(matcher.cameras(printer: "octoprint") == ["camera.garage"])
        #expect(matcher.match(entityID: "sensor.octoprint_current_state") != nil, "a camera-only entry maps nothing else")
        #expect(CameraEntity.proxyPath(for: "camera.garage") == "/api/camera_proxy/camera.garage")
        #expect(CameraEntity.proxyPath(for: "image.x_cover_image") == "/api/image_proxy/image.x_cover_image")
        #expect(CameraEntity.proxyPath(for: "sensor.x") == nil)
    }
}
