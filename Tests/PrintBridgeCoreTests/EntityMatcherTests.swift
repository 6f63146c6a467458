import Testing
@testable import PrintBridgeCore

@Suite struct EntityMatcherTests {
    let matcher = EntityMatcher()

    @Test func prefixIsEntityIDMinusDomainAndSuffix() {
        #expect(matcher.match(entityID: "sensor.x1c_00m09a350100123_print_status")
                == EntityMatch(prefix: "x1c_00m09a350100123", field: .status))
        #expect(matcher.match(entityID: "sensor.p1s_print_progress") == EntityMatch(prefix: "p1s", field: .progress))
        #expect(matcher.match(entityID: "binary_sensor.x1c_print_error") == EntityMatch(prefix: "x1c", field: .error))
    }

    @Test func everyDefaultField() {
        let expected: [(String, PrinterField)] = [
            ("_print_status", .status), ("_print_progress", .progress), ("_current_layer", .currentLayer),
            ("_total_layer_count", .totalLayers), ("_remaining_time", .remainingTime),
            ("_nozzle_temperature", .nozzleTemp), ("_bed_temperature", .bedTemp), ("_task_name", .taskName),
            ("_subtask_name", .subtaskName), ("_gcode_filename", .gcodeFilename), ("_current_stage", .stage),
            ("_print_error", .error),
        ]
        for (suffix, field) in expected {
            #expect(matcher.match(entityID: "sensor.a1" + suffix) == EntityMatch(prefix: "a1", field: field))
        }
    }

    @Test func lookAlikesAndStrangersDoNotMatch() {
        for entity in ["sensor.x1c_target_nozzle_temperature", "sensor.x1c_target_bed_temperature",
                       "sensor.living_room_temperature", "sensor._print_status", "sensor.print_status",
                       "light.kitchen", "sensor.x1c_wifi_signal", "no_domain_print_status", ""] {
            #expect(matcher.match(entityID: entity) == nil, "\(entity)")
        }
    }

    @Test func aCustomMapForOctoPrint() {
        let map = EntitySuffixMap(suffixes: [
            .status: ["_current_state"], .progress: ["_job_percentage"], .nozzleTemp: ["_actual_tool0_temp"],
            .bedTemp: ["_actual_bed_temp"], .gcodeFilename: ["_current_file"],
        ])
        #expect(map.problems().isEmpty)
        let octo = EntityMatcher(map: map)
        #expect(octo.match(entityID: "sensor.octoprint_current_state") == EntityMatch(prefix: "octoprint", field: .status, profile: octo.profiles[0]))
        #expect(octo.match(entityID: "sensor.octoprint_job_percentage") == EntityMatch(prefix: "octoprint", field: .progress, profile: octo.profiles[0]))
        #expect(octo.match(entityID: "sensor.x1c_print_status") == nil)
    }

    @Test func problemsInAMapAreNamed() {
        let map = EntitySuffixMap(suffixes: [.progress: ["print_progress", "_x"], .bedTemp: ["_x"]])
        let problems = map.problems()
        #expect(problems.contains { $0.contains("no suffix is mapped to the print status") })
        #expect(problems.contains { $0.contains("must start with \"_\"") })
        #expect(problems.contains { $0.contains("mapped to both") })
    }

    /// HA's OctoPrint makes a printer's temperature sensors only once the
    /// printer reports temperatures, and numbers entity ids as they are
    /// made: three OctoPrints added while the first was off (a real
    /// registry, HA 2024.3.3, octoprint_chain.py `--unconnected 1`). Each
    /// HA device is the printer its status entity names.
    @Test func aDeviceIsThePrinterItsStatusEntityNames() {
        var matcher = EntityMatcher()
        let devices: [(String, [String])] = [
            ("d1", ["current_state", "job_percentage", "estimated_finish_time", "actual_bed_temp_3", "actual_tool0_temp_3"]),
            ("d2", ["actual_bed_temp", "actual_tool0_temp", "current_state_2", "job_percentage_2", "estimated_finish_time_2"]),
            ("d3", ["actual_bed_temp_2", "actual_tool0_temp_2", "current_state_3", "job_percentage_3", "estimated_finish_time_3"]),
        ]
        matcher.applyRegistry(devices.flatMap { device, names in
            names.map { EntityRegistryEntry(entityID: "sensor.octoprint_" + $0, platform: "octoprint", translationKey: nil, deviceID: device) }
        })
        for (device, printer) in [("d1", "octoprint"), ("d2", "octoprint_2"), ("d3", "octoprint_3")] {
            let names = devices.first { $0.0 == device }!.1
            for name in names {
                #expect(matcher.match(entityID: "sensor.octoprint_" + name)?.prefix == printer, "\(name) of \(device)")
            }
        }
    }

    @Test func germanEntityIDsMatchThroughTheRegistry() {
        var german = EntityMatcher()
        #expect(german.match(entityID: "sensor.x1c_druckstatus") == nil)
        german.applyRegistry([
            EntityRegistryEntry(entityID: "sensor.x1c_druckstatus", platform: "bambu_lab", translationKey: "print_status", deviceID: "d1"),
            EntityRegistryEntry(entityID: "sensor.x1c_druckfortschritt", platform: "bambu_lab", translationKey: "print_progress", deviceID: "d1"),
            EntityRegistryEntry(entityID: "sensor.x1c_dusentemperatur", platform: "bambu_lab", translationKey: "nozzle_temp", deviceID: "d1"),
            EntityRegistryEntry(entityID: "sensor.x1c_ziel_dusentemperatur", platform: "bambu_lab", translationKey: "target_nozzle_temp", deviceID: "d1"),
            EntityRegistryEntry(entityID: "light.kueche", platform: "hue", translationKey: nil, deviceID: "d2"),
        ])
        #expect(german.match(entityID: "sensor.x1c_druckstatus") == EntityMatch(prefix: "x1c", field: .status))
        #expect(german.match(entityID: "sensor.x1c_druckfortschritt") == EntityMatch(prefix: "x1c", field: .progress))
        #expect(german.match(entityID: "sensor.x1c_dusentemperatur") == EntityMatch(prefix: "x1c", field: .nozzleTemp))
        #expect(german.match(entityID: "sensor.x1c_ziel_dusentemperatur") == nil)
        #expect(german.match(entityID: "light.kueche") == nil)
        // Suffix matching still works beside the registry.
        #expect(german.match(entityID: "sensor.p1s_print_status") == EntityMatch(prefix: "p1s", field: .status))
    }
}

@Suite struct EntityMatcherEdgeTests {
    @Test func emptySuffixesNeverClaimEveryEntity() {
        let matcher = EntityMatcher(map: EntitySuffixMap(suffixes: [.status: ["", "_", "_state"]]))
        #expect(matcher.match(entityID: "light.kitchen") == nil)
        #expect(matcher.match(entityID: "sensor.octo_state") == EntityMatch(prefix: "octo", field: .status, profile: matcher.profiles[0]))
    }
}

@Suite struct ShortSuffixTests {
    @Test(arguments: ["_st", "_state", "_status", "_printst", "_progress"])
    func suffixesOfEveryLengthMatch(suffix: String) {
        let matcher = EntityMatcher(map: EntitySuffixMap(suffixes: [.status: [suffix]]))
        #expect(matcher.match(entityID: "sensor.printer\(suffix)") == EntityMatch(prefix: "printer", field: .status, profile: matcher.profiles[0]))
        #expect(matcher.match(entityID: "sensor.printer\(suffix)x") == nil)
    }
}
