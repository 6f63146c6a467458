import PrintBridgeCore
import Testing

/// The alert texts: one catalog per language, English the seed's exact words.
@Suite struct CatalogTests {
    @Test func thereAreEnglishGermanFrenchAndSpanish() {
        #expect(Set(Catalog.all.keys) == ["en", "de", "fr", "es"])
        #expect(Catalog.all.values.allSatisfy { !$0.name.isEmpty })
        #expect(Catalog.all.allSatisfy { $0.key == $0.value.language }, "each file holds the language it is read for")
    }

    @Test(arguments: ["de", "fr", "es"])
    func everyLanguageHasEveryTextWithTheSameArguments(language: String) throws {
        let catalog = try #require(Catalog.all[language])
        let english = Catalog.english
        #expect(catalog.keys == english.keys, "missing: \(english.keys.subtracting(catalog.keys).sorted()), extra: \(catalog.keys.subtracting(english.keys).sorted())")
        for key in english.keys {
            #expect(catalog.argumentNames(key) == english.argumentNames(key), "\(language) \(key)")
        }
    }

    @Test func everyKeyTheCodeAsksForIsInEnglish() {
        for key in Catalog.Key.allCases { #expect(Catalog.english.keys.contains(key.rawValue), "\(key.rawValue)") }
    }

    @Test func everyPausedStageOfHaBambulabHasAReason() {
        // pybambu/const.py CURRENT_STAGE_IDS: the stages that stop a print.
        let stages = [
            "m400_pause", "paused_filament_runout", "paused_user", "paused_front_cover_falling",
            "paused_nozzle_temperature_malfunction", "paused_heat_bed_temperature_malfunction", "paused_skipped_step",
            "paused_ams_lost", "paused_low_fan_speed_heat_break", "paused_chamber_temperature_control_error",
            "paused_user_gcode", "paused_nozzle_filament_covered_detected", "paused_cutter_error",
            "paused_first_layer_error", "paused_nozzle_clog",
        ]
        for catalog in Catalog.all.values {
            for stage in stages { #expect(catalog.text("stage." + stage) != nil, "\(catalog.language) \(stage)") }
        }
    }

    @Test(arguments: [
        (Push.Event.started, "Print Started", "part.3mf started on P"),
        (.complete, "Print Complete! 🎉", "part.3mf finished on P"),
        (.failed, "Print Failed ⚠️", "part.3mf failed on P"),
        (.cancelled, "Print Cancelled", "part.3mf was cancelled on P"),
        (.paused, "Print Paused", "part.3mf paused on P"),
        (.milestone, "50% Complete", "part.3mf on P"),
    ])
    func englishIsTheSeedsWording(event: Push.Event, title: String, body: String) {
        let payload = AlertPayload(
            event: event, prefix: "p", printerName: "P", fileName: "part.3mf", status: .running, progress: 50,
            milestone: event == .milestone ? 50 : nil)
        #expect(payload.aps.alert.title == title)
        #expect(payload.aps.alert.body == body)
    }

    @Test func pluralsFollowEachLanguagesRule() {
        let en = Catalog.english.numbers, fr = Catalog.all["fr"]!.numbers, de = Catalog.all["de"]!.numbers
        #expect(en.pluralCategory(1) == "one" && en.pluralCategory(0) == "other" && en.pluralCategory(2) == "other")
        #expect(de.pluralCategory(1) == "one" && de.pluralCategory(0) == "other")
        #expect(fr.pluralCategory(0) == "one" && fr.pluralCategory(1) == "one" && fr.pluralCategory(2) == "other")
        func minutes(_ catalog: String, _ count: Int) -> String {
            Catalog.all[catalog]!.text(.bedCooledBody, [
                "file": .text("f"), "printer": .text("p"), "temperature": .number(30, decimals: 1), "minutes": .count(count),
            ])
        }
        #expect(minutes("en", 1).contains("in 1 minute."))
        #expect(minutes("en", 0).contains("in 0 minutes."))
        #expect(minutes("fr", 0).contains("en 0 minute."))
        #expect(minutes("es", 12).contains("en 12 minutos."))
        #expect(minutes("de", 1).contains("in 1 Minute auf"))
    }

    @Test func numbersUseTheLanguagesSeparator() {
        let de = Catalog.all["de"]!.numbers, en = Catalog.english.numbers
        #expect(de.format(34.56, decimals: 1) == "34,6")
        #expect(en.format(34.56, decimals: 1) == "34.6")
        #expect(en.format(35.0, decimals: 1) == "35")
        #expect(en.format(-0.04, decimals: 1) == "0")
        #expect(en.format(1e300) == "1e+300", "no overflow trap")
        #expect(en.format(.nan) == "?")
        #expect(en.format(-3.25, decimals: 1) == "-3.3" || en.format(-3.25, decimals: 1) == "-3.2")
        #expect(Catalog.all["de"]!.text(.milestoneTitle, ["percent": .count(75)]) == "75\u{00A0}% fertig")
        #expect(Catalog.all["fr"]!.text(.milestoneTitle, ["percent": .count(75)]) == "75\u{202F}% terminé")
    }

    @Test func argumentsAreNeverReadAsSyntax() {
        let body = Catalog.english.text(.startedBody, ["file": .text("{printer} #1 {x, plural, other {y}}"), "printer": .text("P")])
        #expect(body == "{printer} #1 {x, plural, other {y}} started on P")
    }

    @Test func languageTagsPickTheirCatalog() {
        #expect(Catalog.forLanguage("de-AT")?.language == "de")
        #expect(Catalog.forLanguage("FR_ca")?.language == "fr")
        #expect(Catalog.forLanguage("es")?.language == "es")
        #expect(Catalog.forLanguage("pt-BR") == nil)
        #expect(Catalog.forLanguage(nil) == nil)
        #expect(Catalog.isLanguageTag("zh-Hant-TW"))
        #expect(!Catalog.isLanguageTag("C"))
        #expect(!Catalog.isLanguageTag("en_US:en"))
        #expect(!Catalog.isLanguageTag("de-"))
    }

    @Test func aLanguageWithoutACatalogIsASettingsProblem() {
        #expect(PlannerConfiguration(language: "it").problems() == [
            "alert language \"it\" has no texts; languages: de, en, es, fr",
        ])
        #expect(PlannerConfiguration(language: "de").problems().isEmpty)
        var unknownPhone = Device(id: "x", apnsToken: "")
        unknownPhone.language = "it"
        #expect(PlannerConfiguration(language: "es").catalog(for: unknownPhone).language == "es",
                "a phone in a language without texts gets the setting's")
    }
}
