import PrintBridgeCore
import SettingsYAML
import Testing

@Suite struct PrinterMapTests {
    func parse(_ text: String) throws(SettingsFileError) -> [MappedPrinter] {
        try SettingsDocument(yaml: text, path: "p.yaml", known: ["LOG_LEVEL"]).printers
    }

    func problem(_ text: String) -> String? {
        do { _ = try parse(text); return nil } catch { return error.description }
    }

    @Test func aMappedPrinterWithItsOwnStates() throws {
        let printers = try parse("""
            log_level: info
            printers:
              # the garage Ender
              ender3:
                profile: octoprint
                status: sensor.ender_state
                progress: sensor.ender_progress
                file_name: sensor.ender_file
                finish_time: sensor.ender_eta
                states:     # what its words mean
                  "Printing from USB": running
                  Done: complete
                  Operational: none
              voron:
                status: input_select.voron_status
            """)
        #expect(printers.map(\.prefix) == ["ender3", "voron"])
        let ender = printers[0]
        #expect(ender.entities == [.status: "sensor.ender_state", .progress: "sensor.ender_progress",
                                   .taskName: "sensor.ender_file", .finishTime: "sensor.ender_eta"])
        #expect(ender.profile.status(raw: "Printing from USB") == .running)
        #expect(ender.profile.status(raw: "done") == .complete)
        #expect(ender.profile.status(raw: "Operational") == nil, "none removes OctoPrint's own meaning")
        #expect(ender.profile.status(raw: "Cancelling") == .cancelled, "the rest of OctoPrint's words stay")
        #expect(ender.profile.idleEndsPrint)
        let matcher = EntityMatcher(mapped: printers)
        #expect(matcher.match(entityID: "sensor.ender_progress") == EntityMatch(prefix: "ender3", field: .progress, profile: ender.profile))
        #expect(matcher.match(entityID: "input_select.voron_status")?.prefix == "voron")
        #expect(matcher.printerProfiles["ender3"] == ender.profile)
    }

    @Test func mistakesNameTheirLineAndColumn() {
        #expect(problem("printers:\n  a:\n    progress: sensor.a_p\n") == "p.yaml:2:3: printers: printer \"a\" needs a status entity (or only a camera)")
        #expect(problem("printers:\n  a:\n    status: sensor.a\n    colour: red\n")?.contains("p.yaml:4:5: printers: unknown key \"colour\"") == true)
        #expect(problem("printers:\n  a:\n    status: Sensor A\n")?.hasPrefix("p.yaml:3:13: printers: status must be an entity id") == true)
        #expect(problem("printers:\n  a:\n    status: sensor.a\n    profile: cura\n")?.contains("p.yaml:4:14: printers: unknown profile \"cura\"") == true)
        #expect(problem("printers:\n  a:\n    status: sensor.a\n    states:\n      Busy: working\n")?.hasPrefix("p.yaml:5:7: printers: \"Busy\" must map to one of") == true)
        #expect(problem("printers:\n  a:\n    status: sensor.x\n  b:\n    status: sensor.x\n") == "p.yaml:5:13: printers: sensor.x is already a's status")
        #expect(problem("printers: yes\n")?.hasPrefix("p.yaml:1:11: \"printers\" takes the printers by name below it, not one value") == true)
        #expect(problem("printers:\nlog_level: info\n") == "p.yaml:1:1: printers: no printers under \"printers:\"")
        // Indentation that matches nothing is libyaml's error, at the line that breaks it.
        #expect(problem("printers:\n  a:\n    status: sensor.a\n   progress: sensor.b\n")
            == "p.yaml:4:4: not valid YAML: did not find expected key (while parsing a block mapping at 2:3)")
        #expect(problem("printers:\n  a:\n    stauts: sensor.a\n") == "p.yaml:3:5: printers: unknown key \"stauts\" (did you mean status?)")
        #expect(problem("printers:\n  a: sensor.a\n") == "p.yaml:2:6: printers: \"a\" needs its entities below it (status: sensor.…)")
        #expect(problem("printers:\n  a:\n    status: [sensor.a]\n") == "p.yaml:3:13: \"printers.a.status\" takes one value, not a list")
        #expect(problem("printers:\n  a:\n    status: sensor.a\n    states:\n") == "p.yaml:4:5: printers: \"states:\" has no entries")
        #expect(problem("printers:\n  a:\n    status: sensor.a\n    states: [running]\n")?
            .hasPrefix("p.yaml:4:13: \"printers.a.states\" takes a mapping of status texts to words") == true)
        #expect(problem("printers:\n  \"a b\":\n    status: sensor.a\n")?.hasPrefix("p.yaml:2:3: printers: \"a b\" is not a printer name") == true)
    }
}

extension PrinterMapTests {
    @Test func aPrintersCameraAloneOrBesideItsEntities() throws {
        let printers = try parse("""
            printers:
              x1c_00m09a350100123:
                camera: camera.workshop
              ender3:
                status: sensor.ender_state
                camera: image.ender_preview
            """)
        #expect(printers.map(\.prefix) == ["x1c_00m09a350100123", "ender3"])
        #expect(printers[0].camera == "camera.workshop" && printers[0].entities.isEmpty)
        #expect(printers[1].camera == "image.ender_preview" && printers[1].entities[.status] == "sensor.ender_state")
        #expect(problem("printers:\n  a:\n    camera: sensor.a_cam\n")
            == "p.yaml:3:13: printers: camera must be a camera or image entity id such as camera.a_camera")
        #expect(problem("printers:\n  a:\n    camera: camera.a\n    camera: camera.b\n") == "p.yaml:4:5: \"camera\" is set twice")
        #expect(problem("printers:\n  a:\n    profile: octoprint\n    camera: camera.a\n")
            == "p.yaml:2:3: printers: printer \"a\" needs a status entity (or only a camera)")
    }
}

extension PrinterMapTests {
    /// HA's OctoPrint integration reports no filament: a printer's entry
    /// names the sensors that do (an OctoPrint plugin's, a template's), and
    /// the print's record carries them.
    @Test func filamentSensorsNamedForAMappedPrinterReachItsRecord() throws {
        let printers = try parse("""
            printers:
              ender3:
                profile: octoprint
                status: sensor.ender_state
                progress: sensor.ender_progress
                filament_weight: sensor.ender_filament_g
                filament_length: sensor.ender_filament_m
            """)
        #expect(printers[0].entities[.materialWeight] == "sensor.ender_filament_g")
        #expect(printers[0].entities[.materialLength] == "sensor.ender_filament_m")
        var h = PipelineHarness(devices: [device()])
        h.reader = HAFrameReader(matcher: EntityMatcher(mapped: printers))
        h.set("ender", "_state", "Operational")
        h.set("ender", "_progress", "0")
        h.set("ender", "_state", "Printing", after: 1)
        h.wait(h.pipeline.planner.configuration.startSettle)
        h.set("ender", "_filament_g", "12.5", after: 600)
        h.set("ender", "_filament_m", "4.2", after: 1)
        h.set("ender", "_progress", "100", after: 600)
        h.set("ender", "_state", "Operational", after: 30)
        h.wait(h.pipeline.planner.configuration.flickerWindow + 1)
        #expect(h.prints.map(\.outcome) == [.complete])
        #expect(h.prints.first?.materials == [MaterialUse(grams: 12.5, meters: 4.2)])
    }
}
