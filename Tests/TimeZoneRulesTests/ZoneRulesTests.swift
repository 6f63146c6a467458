import Testing
@testable import TimeZones

/// ZoneRules against the system's tzdata. Every expected number was computed
/// independently with Python's zoneinfo (`datetime.fromtimestamp(t,
/// ZoneInfo(name)).utcoffset()`, changes found by bisection) and is written
/// here as a literal.
@Suite struct ZoneRulesTests {
    // Instants used below (seconds since 1970-01-01T00:00:00Z).
    static let jan15_2026Noon: Int64 = 1_768_478_400  // 2026-01-15T12:00:00Z
    static let jul15_2026Noon: Int64 = 1_784_116_800  // 2026-07-15T12:00:00Z
    static let start2026: Int64 = 1_767_225_600  // 2026-01-01T00:00:00Z
    static let start2027: Int64 = 1_798_761_600  // 2027-01-01T00:00:00Z
    static let jul1_2090: Int64 = 3_802_550_400  // 2090-07-01T00:00:00Z
    static let jan15_2090: Int64 = 3_788_121_600  // 2090-01-15T00:00:00Z

    static func zone(_ name: String) throws -> ZoneRules {
        try #require(ZoneRules(identifier: name), "\(name) is in the system's tzdata")
    }

    @Test func berlinWinterAndSummer2026() throws {
        let berlin = try Self.zone("Europe/Berlin")
        #expect(berlin.identifier == "Europe/Berlin")
        #expect(berlin.offset(at: Self.jan15_2026Noon) == 3600)
        #expect(berlin.offset(at: Self.jul15_2026Noon) == 7200)
    }

    /// Spring: 2026-03-29T01:00:00Z (02:00 CET becomes 03:00 CEST); autumn:
    /// 2026-10-25T01:00:00Z (03:00 CEST becomes 02:00 CET).
    @Test func berlinChanges2026() throws {
        let berlin = try Self.zone("Europe/Berlin")
        let spring: Int64 = 1_774_746_000
        let autumn: Int64 = 1_792_890_000
        #expect(berlin.nextChange(after: Self.start2026) == spring)
        #expect(berlin.nextChange(after: spring) == autumn)
        #expect(berlin.offset(at: spring - 1) == 3600 && berlin.offset(at: spring) == 7200)
        #expect(berlin.offset(at: autumn - 1) == 7200 && berlin.offset(at: autumn) == 3600)

        let periods = berlin.periods(from: Self.start2026, to: Self.start2027)
        #expect(periods.map(\.start) == [Self.start2026, spring, autumn])
        #expect(periods.map(\.offset) == [3600, 7200, 3600])
        // A change exactly at `to` belongs to the next range, one at `from` to this one.
        #expect(berlin.periods(from: Self.start2026, to: spring).map(\.start) == [Self.start2026])
        #expect(berlin.periods(from: spring, to: autumn + 1).map(\.start) == [spring, autumn])
    }

    /// After the TZif file's last transition the POSIX footer rule decides.
    @Test func farFutureFollowsTheFooterRule() throws {
        #expect(try Self.zone("Europe/Berlin").offset(at: Self.jul1_2090) == 7200)
        let newYork = try Self.zone("America/New_York")
        #expect(newYork.offset(at: Self.jul15_2026Noon) == -14_400)
        #expect(newYork.offset(at: Self.jan15_2026Noon) == -18_000)
        #expect(newYork.offset(at: Self.jul1_2090) == -14_400)
        #expect(newYork.offset(at: Self.jan15_2090) == -18_000)
        // 2026: 2026-03-08T07:00:00Z and 2026-11-01T06:00:00Z.
        #expect(newYork.periods(from: Self.start2026, to: Self.start2027).map(\.start)
            == [Self.start2026, 1_772_953_200, 1_793_512_800])
    }

    /// Centuries after the file's transitions the footer rule still gives
    /// each change (2437 and 2438 around the end of cctz's old 400-year
    /// table, 2500), and the changes agree with the offsets.
    @Test func changesCenturiesAheadFollowTheRule() throws {
        let berlin = try Self.zone("Europe/Berlin")
        let start2437: Int64 = 14_737_161_600, start2439: Int64 = 14_800_233_600
        let periods = berlin.periods(from: start2437, to: start2439)
        // 2437-03-29T01:00Z, 2437-10-25T01:00Z (the table's last), 2438-03-28T01:00Z, 2438-10-31T01:00Z.
        #expect(periods.map(\.start) == [start2437, 14_744_682_000, 14_762_826_000, 14_776_131_600, 14_794_880_400])
        #expect(periods.map(\.offset) == [3600, 7200, 3600, 7200, 3600])

        let start2500: Int64 = 16_725_225_600, start2501: Int64 = 16_756_761_600
        // 2500-03-28T01:00Z and 2500-10-31T01:00Z.
        #expect(berlin.periods(from: start2500, to: start2501).map(\.start) == [start2500, 16_732_659_600, 16_751_408_400])
        #expect(berlin.offset(at: 16_740_864_000) == 7200)  // 2500-07-01
        for period in berlin.periods(from: start2437, to: start2501).dropFirst() {  // each a change
            #expect(berlin.offset(at: period.start) == period.offset)
            #expect(berlin.offset(at: period.start - 1) != period.offset)
        }
    }

    @Test func kolkataHasNoChanges() throws {
        let kolkata = try Self.zone("Asia/Kolkata")
        #expect(kolkata.offset(at: Self.jan15_2026Noon) == 19_800)
        #expect(kolkata.offset(at: Self.jul15_2026Noon) == 19_800)
        #expect(kolkata.offset(at: Self.jul1_2090) == 19_800)
        #expect(kolkata.nextChange(after: Self.start2026) == nil)
        #expect(kolkata.periods(from: Self.start2026, to: Self.start2027).count == 1)
    }

    /// Lord Howe's summer time is half an hour: +11:00 in January, +10:30 in July.
    @Test func lordHoweHalfHourSummerTime() throws {
        let lordHowe = try Self.zone("Australia/Lord_Howe")
        #expect(lordHowe.offset(at: Self.jan15_2026Noon) == 39_600)
        #expect(lordHowe.offset(at: Self.jul15_2026Noon) == 37_800)
        #expect(lordHowe.offset(at: Self.jul1_2090) == 37_800)
        // 2026-04-04T15:00:00Z to +10:30, 2026-10-03T15:30:00Z back to +11:00.
        let periods = lordHowe.periods(from: Self.start2026, to: Self.start2027)
        #expect(periods.map(\.start) == [Self.start2026, 1_775_314_800, 1_791_041_400])
        #expect(periods.map(\.offset) == [39_600, 37_800, 39_600])
    }

    @Test(arguments: ["UTC", "Etc/UTC", "Z"])
    func utcNames(name: String) throws {
        let utc = try Self.zone(name)
        #expect(utc.identifier == name)
        for instant in [Int64.min, 0, Self.jan15_2026Noon, Self.jul15_2026Noon, Self.jul1_2090, Int64.max] {
            #expect(utc.offset(at: instant) == 0)
        }
        #expect(utc.nextChange(after: Int64.min) == nil)
        #expect(utc.periods(from: Self.start2026, to: Self.start2027).map(\.start) == [Self.start2026])
        #expect(ZoneRules.utc.identifier == "UTC" && ZoneRules.utc.offset(at: Self.jul15_2026Noon) == 0)
    }

    @Test(arguments: [
        "Mars/Olympus", "", "../../etc/passwd", "/etc/localtime", "localtime", "Europe", "Europe/../Europe/Berlin",
        "./UTC", "Europe//Berlin", "Europe/Berlin/", "right/Europe/Berlin", "zone.tab", "Europe/Berlin\0junk",
        "europe/berlin", "Europe/Berlin ", String(repeating: "A", count: 201),
    ])
    func unknownNamesAreNil(name: String) {
        #expect(ZoneRules(identifier: name) == nil)
    }

    /// [from, to) with to <= from holds no instant: no periods.
    @Test func emptyAndReversedRanges() throws {
        let berlin = try Self.zone("Europe/Berlin")
        #expect(berlin.periods(from: Self.start2026, to: Self.start2026).isEmpty)
        #expect(berlin.periods(from: Self.start2027, to: Self.start2026).isEmpty)
        #expect(berlin.periods(from: Self.start2026, to: Self.start2026 + 1).map(\.start) == [Self.start2026])
    }

    /// The whole time line is cut at maximumPeriods, each a real change.
    @Test func aHugeRangeIsCut() throws {
        let periods = try Self.zone("Europe/Berlin").periods(from: .min, to: .max)
        #expect(periods.count == ZoneRules.maximumPeriods)
        #expect(periods.first?.offset == 3208)  // Berlin's local mean time, +00:53:28
        #expect(zip(periods, periods.dropFirst()).allSatisfy { $0.start < $1.start && $0.offset != $1.offset })
    }

    /// More zones than the cache holds, from many tasks at once: every answer stays right.
    @Test func manyZonesFromManyTasks() async throws {
        let names = [
            "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/London",
            "Asia/Tokyo", "America/Los_Angeles", "Pacific/Chatham", "Africa/Casablanca", "America/Sao_Paulo",
        ]
        let expected = [7200, -14_400, 19_800, 37_800, 3600, 32_400, -25_200, 45_900, 3600, -10_800]
        let extra = (1...12).map { "Etc/GMT+\($0)" } + (1...14).map { "Etc/GMT-\($0)" }
            + ["Europe/Paris", "Europe/Rome", "Europe/Madrid", "Europe/Vienna", "Europe/Prague", "Europe/Warsaw",
               "Europe/Oslo", "Europe/Helsinki", "Europe/Athens", "Europe/Lisbon", "Europe/Dublin", "Europe/Zurich",
               "Asia/Shanghai", "Asia/Seoul", "Asia/Dubai", "Asia/Singapore", "Asia/Jakarta", "Asia/Manila",
               "Asia/Karachi", "Asia/Dhaka", "Asia/Kathmandu", "Asia/Tehran", "Asia/Jerusalem", "Asia/Riyadh",
               "Africa/Cairo", "Africa/Lagos", "Africa/Nairobi", "Africa/Johannesburg", "America/Chicago",
               "America/Denver", "America/Phoenix", "America/Anchorage", "Pacific/Honolulu", "Pacific/Auckland"]
        await withTaskGroup(of: Void.self) { group in
            for round in 0..<8 {
                group.addTask {
                    for name in extra where name.count % 8 == round % 8 || round == 0 {
                        #expect(ZoneRules(identifier: name) != nil, "\(name)")
                    }
                    for (name, offset) in zip(names, expected) {
                        #expect(ZoneRules(identifier: name)?.offset(at: Self.jul15_2026Noon) == offset, "\(name)")
                    }
                }
            }
            await group.waitForAll()
        }
        #expect(try Self.zone("Etc/GMT+5").offset(at: Self.jul15_2026Noon) == -18_000)  // POSIX sign: GMT+5 is UTC-5
    }
}

/// A "slim" TZif file (Alpine's and others' kind): Europe/Berlin as
/// `zic -b slim` writes it, 705 bytes, its transitions ending 1996-03-31 and
/// every later change from the footer "CET-1CEST,M3.5.0,M10.5.0/3".
@Suite struct SlimFileTests {
    static let berlinSlim = TZifBytes.hex("""
        545a69663200000000000000000000000000000000000000000000000000000000000000000000010000000100000000
        000000545a6966320000000000000000000000000000000000000000000000000000000000003c0000000400000012ff
        ffffff6fa261f8ffffffff9b0c1760ffffffff9bd5daf0ffffffff9cd9ae90ffffffff9da4b590ffffffff9eb99090ff
        ffffff9f849790ffffffffc8097190ffffffffcce74b10ffffffffcda91790ffffffffcea24310ffffffffcf923410ff
        ffffffd0822510ffffffffd1721610ffffffffd1b69600ffffffffd258be80ffffffffd2a14f10ffffffffd3631b90ff
        ffffffd44b2390ffffffffd539d120ffffffffd567e790ffffffffd5a87300ffffffffd629b410ffffffffd72c1a10ff
        ffffffd8099610ffffffffd902c190ffffffffd9e9781000000000134d4410000000001433fa90000000001523eb9000
        0000001613dc90000000001703cd900000000017f3be900000000018e3af900000000019d3a090000000001ac3919000
        0000001bbcbd10000000001cacae10000000001d9c9f10000000001e8c9010000000001f7c811000000000206c721000
        000000215c631000000000224c541000000000233c451000000000242c361000000000251c271000000000260c181000
        000000270543900000000027f534900000000028e525900000000029d51690000000002ac50790000000002bb4f89000
        0000002ca4e990000000002d94da90000000002e84cb90000000002f74bc90000000003064ad9000000000315dd91002
        010201020102010201020102010301020102010301020102010201020102010201020102010201020102010201020102
        010201020102010201020100000c88000000001c20010400000e10000900002a30010d4c4d5400434553540043455400
        43454d54000a4345542d31434553542c4d332e352e302c4d31302e352e302f330a
        """)

    static func berlin() throws -> ZoneRules {
        let tzif = try #require(TZif.parse(berlinSlim))
        return ZoneRules(identifier: "Europe/Berlin", tzif: tzif)
    }

    @Test func theFileIsSlim() throws {
        let tzif = try #require(TZif.parse(Self.berlinSlim))
        #expect(Self.berlinSlim.count == 705)
        #expect(tzif.version == 2 && tzif.transitions.count == 60 && tzif.types.count == 4)
        #expect(tzif.transitions.last == 828_234_000)  // 1996-03-31T01:00:00Z
        #expect(tzif.footer == POSIXTimeZone("CET-1CEST,M3.5.0,M10.5.0/3"))
    }

    /// The same literals as the system's (fat) file gives above.
    @Test func futureOffsetsComeFromTheFooter() throws {
        let berlin = try Self.berlin()
        #expect(berlin.offset(at: ZoneRulesTests.jan15_2026Noon) == 3600)
        #expect(berlin.offset(at: ZoneRulesTests.jul15_2026Noon) == 7200)
        #expect(berlin.offset(at: ZoneRulesTests.jan15_2090) == 3600)
        #expect(berlin.offset(at: ZoneRulesTests.jul1_2090) == 7200)
        #expect(berlin.periods(from: ZoneRulesTests.start2026, to: ZoneRulesTests.start2027).map(\.start)
            == [ZoneRulesTests.start2026, 1_774_746_000, 1_792_890_000])
        let start2437: Int64 = 14_737_161_600, start2439: Int64 = 14_800_233_600
        let periods = berlin.periods(from: start2437, to: start2439)
        #expect(periods.map(\.start) == [start2437, 14_744_682_000, 14_762_826_000, 14_776_131_600, 14_794_880_400])
        #expect(periods.map(\.offset) == [3600, 7200, 3600, 7200, 3600])
        // 1996-10-27T01:00:00Z, the first change after the file's last transition.
        #expect(berlin.nextChange(after: 828_234_000) == 846_378_000)
        #expect(berlin.offset(at: 828_234_000) == 7200 && berlin.offset(at: 828_234_001) == 7200)
    }

    /// Every change from 1800 to 2500 as the system's fat file has them.
    @Test func slimAndFatAgree() throws {
        let fat = try ZoneRulesTests.zone("Europe/Berlin")
        let start1800: Int64 = -5_364_662_400, start2500: Int64 = 16_725_225_600
        let slim = try Self.berlin().periods(from: start1800, to: start2500)
        let expected = fat.periods(from: start1800, to: start2500)
        #expect(slim.count == expected.count && slim.count > 1000)
        #expect(zip(slim, expected).allSatisfy { $0.start == $1.start && $0.offset == $1.offset })
    }

    /// The ends of Int64: no overflow, no change past the last representable one.
    @Test func theEndsOfTime() throws {
        let berlin = try Self.berlin()
        #expect([3600, 7200].contains(berlin.offset(at: .max)))
        #expect(berlin.offset(at: .min) == 3208)
        let last = try #require(berlin.nextChange(after: .max - 400 * 31_556_952))
        #expect(berlin.nextChange(after: .max - 1) == nil)
        #expect(berlin.offset(at: last) != berlin.offset(at: last - 1))
        let tail = berlin.periods(from: .max - 2 * 31_556_952, to: .max)
        #expect(tail.count >= 4 && tail.count <= 6)
    }
}

/// Footer rules alone. Expected instants are glibc's (Python's time.localtime
/// under TZ=rule, changes found by bisection), written as literals.
@Suite struct POSIXRuleTests {
    static let start2027: Int64 = 1_798_761_600, start2028: Int64 = 1_830_297_600, start2029: Int64 = 1_861_920_000

    /// The offset at `from` and each change (instant, new offset) before `to`.
    static func changes(_ rule: POSIXTimeZone, from: Int64, to: Int64) -> [Int64] {
        var found: [Int64] = [], after = from
        while let change = rule.nextChange(after: after), change < to, found.count < 100 {
            #expect(rule.offset(at: change) != rule.offset(at: change - 1))
            #expect(rule.offset(at: change - 1) == rule.offset(at: after))
            found.append(change)
            after = change
        }
        return found
    }

    struct Case: Sendable, CustomStringConvertible {
        let rule: String
        /// Offsets in January and July 2027.
        let january: Int, july: Int
        /// The changes in 2027 and 2028.
        let changes2027: [Int64], changes2028: [Int64]
        var description: String { rule }
    }

    static let cases: [Case] = [
        Case(rule: "CET-1CEST,M3.5.0,M10.5.0/3", january: 3600, july: 7200,
             changes2027: [1_806_195_600, 1_824_944_400], changes2028: [1_837_645_200, 1_856_394_000]),
        Case(rule: "EST5EDT,M3.2.0,M11.1.0", january: -18_000, july: -14_400,
             changes2027: [1_805_007_600, 1_825_567_200], changes2028: [1_836_457_200, 1_857_016_800]),
        // Southern hemisphere: summer time across New Year.
        Case(rule: "AEST-10AEDT,M10.1.0,M4.1.0/3", january: 39_600, july: 36_000,
             changes2027: [1_806_768_000, 1_822_492_800], changes2028: [1_838_217_600, 1_853_942_400]),
        // Jn never counts February 29 (J60 is March 1); zero-based n does (59 is February 29 in 2028).
        Case(rule: "AAA3BBB,J60/0,J300/0", january: -10_800, july: -7200,
             changes2027: [1_803_870_000, 1_824_602_400], changes2028: [1_835_492_400, 1_856_224_800]),
        Case(rule: "AAA3BBB,59/0,299/0", january: -10_800, july: -7200,
             changes2027: [1_803_870_000, 1_824_602_400], changes2028: [1_835_406_000, 1_856_138_400]),
        // RFC 8536 §3.3.1's times: negative (Nuuk), past 24 h (Jerusalem, Gaza).
        Case(rule: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", january: -7200, july: -3600,
             changes2027: [1_806_195_600, 1_824_944_400], changes2028: [1_837_645_200, 1_856_394_000]),
        Case(rule: "IST-2IDT,M3.4.4/26,M10.5.0", january: 7200, july: 10_800,
             changes2027: [1_806_019_200, 1_824_937_200], changes2028: [1_837_468_800, 1_856_386_800]),
        Case(rule: "EET-2EEST,M3.4.4/50,M10.4.4/50", january: 7200, july: 10_800,
             changes2027: [1_806_105_600, 1_824_850_800], changes2028: [1_837_555_200, 1_856_300_400]),
        // Dublin: "summer" time is the winter's GMT, one hour behind standard.
        Case(rule: "IST-1GMT0,M10.5.0,M3.5.0/1", january: 0, july: 3600,
             changes2027: [1_806_195_600, 1_824_944_400], changes2028: [1_837_645_200, 1_856_394_000]),
        Case(rule: "<+0330>-3:30", january: 12_600, july: 12_600, changes2027: [], changes2028: []),
        Case(rule: "<-0930>9:30", january: -34_200, july: -34_200, changes2027: [], changes2028: []),
        Case(rule: "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45", january: 49_500, july: 45_900,
             changes2027: [1_806_760_800, 1_821_880_800], changes2028: [1_838_210_400, 1_853_330_400]),
    ]

    @Test(arguments: cases)
    func rule(_ test: Case) throws {
        let rule = try #require(POSIXTimeZone(test.rule))
        #expect(rule.offset(at: Self.start2027 + 14 * 86_400) == test.january)
        #expect(rule.offset(at: Self.start2027 + 195 * 86_400) == test.july)
        #expect(Self.changes(rule, from: Self.start2027, to: Self.start2028) == test.changes2027)
        #expect(Self.changes(rule, from: Self.start2028, to: Self.start2029) == test.changes2028)
        #expect(rule.changes == !test.changes2027.isEmpty)
        // 400 years on, the same changes (the Gregorian cycle).
        let cycle = POSIXTimeZone.cycle
        #expect(Self.changes(rule, from: Self.start2027 + cycle, to: Self.start2028 + cycle)
            == test.changes2027.map { $0 + cycle })
        // Both ends of Int64: an answer, never a trap.
        for instant in [Int64.min, .min + 1, -1, 0, .max - 1, .max] {
            #expect([test.january, test.july].contains(rule.offset(at: instant)))
        }
        #expect(rule.nextChange(after: .max - 1) == nil)
    }

    /// RFC 8536 §3.3.1's example: summer time all year, 4 hours behind UT.
    /// (glibc and Python's zoneinfo answer EST for the first five hours of
    /// each UTC year; see POSIXTimeZone.)
    @Test func summerTimeAllYear() throws {
        let rule = try #require(POSIXTimeZone("EST5EDT,0/0,J365/25"))
        #expect(!rule.changes)
        for instant: Int64 in [.min, Self.start2027, Self.start2027 + 3600, Self.start2028 + 5 * 3600, .max] {
            #expect(rule.offset(at: instant) == -14_400)
        }
        #expect(rule.nextChange(after: Self.start2027) == nil)
    }

    @Test func parsedValues() throws {
        let rule = try #require(POSIXTimeZone("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
        #expect(rule.standardOffset == 37_800)
        let daylight = try #require(rule.daylight)
        #expect(daylight.offset == 39_600)
        #expect(daylight.start == .init(day: .monthWeekDay(month: 10, week: 1, weekday: 0), time: 7200))
        #expect(try #require(POSIXTimeZone("EST5EDT,M3.2.0,M11.1.0")).daylight?.offset == -14_400)  // dst: std + 1 h
        #expect(try #require(POSIXTimeZone("AAA0BBB,J1/-167:59:59,J365/+167")).daylight?.end.time == 167 * 3600)
        #expect(try #require(POSIXTimeZone("AAA0BBB,J1/-167:59:59,J365/+167")).daylight?.start.time == -604_799)
        #expect(try #require(POSIXTimeZone("UTC0")).daylight == nil)
        #expect(try #require(POSIXTimeZone("<-00>0")).standardOffset == 0)
        #expect(try #require(POSIXTimeZone("XXX-24")).standardOffset == 86_400)
        #expect(try #require(POSIXTimeZone("XXX+24:59:59")).standardOffset == -89_999)
    }

    @Test(arguments: [
        "", "CET", "-1", "CE-1", "C1T-1", "<+3>-3", "<+03-3", "<+0 3>-3", "CET-25", "CET-1:60", "CET-1:5", "CET-1:05:6",
        "CET-1 ", " CET-1", "CET-1CEST", "CET-1,M3.5.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-1CEST,M3.5.0,M10.5.0,",
        "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M0.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0", "CET-1CEST,M3.0.0,M10.5.0",
        "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,M3.5,M10.5.0", "CET-1CEST,J0,J365", "CET-1CEST,J366,J365",
        "CET-1CEST,366,J365", "CET-1CEST,M3.5.0/168,M10.5.0", "CET-1CEST,M3.5.0/,M10.5.0", "CET-1CEST-25,M3.5.0,M10.5.0",
        "CET-1CEST,M3.5.0/2:0,M10.5.0", "CET-1CE,M3.5.0,M10.5.0", "CET\u{0}-1", "ÄÖÜ-1", "CET-1CEST,,",
    ])
    func notARule(_ string: String) {
        #expect(POSIXTimeZone(string) == nil)
    }
}

/// Bytes that are not a valid TZif file are nil, whatever they claim.
@Suite struct MalformedFileTests {
    static let valid = TZifBytes.make(
        transitions: [-1_000_000, 0, 1_000_000], indices: [1, 2, 1],
        types: [(3208, false, 0), (3600, false, 4), (7200, true, 8)], characters: Array("LMT\0CET\0CEST\0".utf8),
        footer: "CET-1CEST,M3.5.0,M10.5.0/3")

    /// Where the version 2 header's counts are: the version 1 block (44 + 7 bytes), then 20 bytes in.
    static let counts = 51 + 20

    static func patched(_ bytes: [UInt8], at index: Int, _ replacement: [UInt8]) -> [UInt8] {
        var bytes = bytes
        bytes.replaceSubrange(index..<index + replacement.count, with: replacement)
        return bytes
    }

    @Test func theBaseParses() throws {
        let tzif = try #require(TZif.parse(Self.valid))
        #expect(tzif.transitions == [-1_000_000, 0, 1_000_000] && tzif.transitionTypes == [1, 2, 1])
        #expect(tzif.types.map(\.utcOffset) == [3208, 3600, 7200])
        let zone = ZoneRules(identifier: "test", tzif: tzif)
        #expect(zone.offset(at: -1_000_001) == 3208 && zone.offset(at: 0) == 7200 && zone.offset(at: 1_000_000) == 3600)
        #expect(zone.nextChange(after: 0) == 1_000_000)
        // After the last transition the footer (1970 winter is CET).
        #expect(zone.offset(at: 1_000_001) == 3600)
        // Anything after the footer's newline is not read.
        #expect(TZif.parse(Self.valid + Array("trailing".utf8)) == tzif)
    }

    @Test func everyTruncationIsNil() {
        for length in 0..<Self.valid.count {
            #expect(TZif.parse(Array(Self.valid.prefix(length))) == nil, "\(length) bytes")
        }
        for length in 0..<SlimFileTests.berlinSlim.count {
            #expect(TZif.parse(Array(SlimFileTests.berlinSlim.prefix(length))) == nil, "\(length) bytes")
        }
    }

    @Test func badMagicOrVersion() {
        #expect(TZif.parse(Self.patched(Self.valid, at: 0, Array("TZiF".utf8))) == nil)
        #expect(TZif.parse(Self.patched(Self.valid, at: 4, Array("1".utf8))) == nil)
        #expect(TZif.parse(Self.patched(Self.valid, at: 4, [0xFF])) == nil)
        #expect(TZif.parse(Self.patched(Self.valid, at: 51 + 4, Array("3".utf8))) == nil)  // the two headers disagree
        #expect(TZif.parse(Self.patched(Self.valid, at: 51, Array("TZix".utf8))) == nil)
        #expect(TZif.parse(Array("TZif2".utf8) + [UInt8](repeating: 0, count: 39)) == nil)  // no types
    }

    /// Counts larger than the file, or than what the file's own other counts leave.
    @Test(arguments: [0, 4, 8, 12, 16, 20])
    func countsLargerThanTheFile(count: Int) {
        #expect(TZif.parse(Self.patched(Self.valid, at: Self.counts + count, [0xFF, 0xFF, 0xFF, 0xFF])) == nil)
        #expect(TZif.parse(Self.patched(Self.valid, at: 20 + count, [0xFF, 0xFF, 0xFF, 0xFF])) == nil)  // version 1's
        #expect(TZif.parse(Self.patched(Self.valid, at: Self.counts + count, [0, 0, 0x10, 0])) == nil)
    }

    @Test func inconsistentData() {
        // No types; no abbreviation bytes; indicators neither absent nor one per type.
        #expect(TZif.parse(TZifBytes.make(types: [], characters: [0])) == nil)
        #expect(TZif.parse(TZifBytes.make(characters: [])) == nil)
        #expect(TZif.parse(Self.patched(Self.valid, at: Self.counts, [0, 0, 0, 1])) == nil)
        // A transition to a type that does not exist; transitions out of order or equal.
        #expect(TZif.parse(TZifBytes.make(transitions: [0], indices: [1])) == nil)
        #expect(TZif.parse(TZifBytes.make(transitions: [5, 5], indices: [0, 0])) == nil)
        #expect(TZif.parse(TZifBytes.make(transitions: [6, 5], indices: [0, 0])) == nil)
        // Offsets outside (-25 h, 26 h), summer-time flags other than 0 and 1, an abbreviation past the bytes.
        #expect(TZif.parse(TZifBytes.make(types: [(93_600, false, 0)])) == nil)
        #expect(TZif.parse(TZifBytes.make(types: [(-90_000, false, 0)])) == nil)
        #expect(TZif.parse(TZifBytes.make(types: [(Int32.min, false, 0)])) == nil)
        #expect(TZif.parse(TZifBytes.make(types: [(93_599, false, 0)])) != nil)
        #expect(TZif.parse(TZifBytes.make(types: [(-89_999, false, 0)])) != nil)
        #expect(TZif.parse(TZifBytes.make(types: [(0, false, 4)])) == nil)
        var flag = TZifBytes.make(types: [(0, false, 0)])
        flag[flag.count - 2 - 4 - 2] = 2  // the type's isdst byte (before its index, the 4 characters and "\n\n")
        #expect(TZif.parse(flag) == nil)
    }

    @Test func footers() throws {
        #expect(TZif.parse(TZifBytes.make(footer: "not a rule")) == nil)
        #expect(TZif.parse(TZifBytes.make(footer: "CET-1CEST")) == nil)
        #expect(TZif.parse(Array(TZifBytes.make(footer: "UTC0").dropLast())) == nil)  // no closing newline
        #expect(TZif.parse(Array(TZifBytes.make(footer: "").dropLast(2))) == nil)  // no footer at all
        var noNewline = TZifBytes.make(footer: "UTC0")
        noNewline[noNewline.count - 6] = UInt8(ascii: "x")  // the opening "\n"
        #expect(TZif.parse(noNewline) == nil)
        // An empty footer: the last transition's type goes on; none: type 0.
        let empty = try #require(TZif.parse(TZifBytes.make(transitions: [0], indices: [1],
            types: [(0, false, 0), (3600, false, 0)], footer: "")))
        #expect(empty.footer == nil && ZoneRules(identifier: "x", tzif: empty).offset(at: .max) == 3600)
        #expect(ZoneRules(identifier: "x", tzif: empty).nextChange(after: 0) == nil)
        // No transitions: the footer for every instant.
        let ruleOnly = try #require(TZif.parse(TZifBytes.make(footer: "<+0330>-3:30")))
        #expect(ZoneRules(identifier: "x", tzif: ruleOnly).offset(at: .min) == 12_600)
    }

    /// Version 1 files: 32-bit times, no footer (the last type goes on).
    @Test func versionOne() throws {
        let bytes = TZifBytes.make(version: 0, transitions: [-100, 100], indices: [1, 0],
            types: [(0, false, 0), (-18_000, false, 0)])
        let tzif = try #require(TZif.parse(bytes))
        #expect(tzif.version == 1 && tzif.transitions == [-100, 100] && tzif.footer == nil)
        let zone = ZoneRules(identifier: "x", tzif: tzif)
        #expect(zone.periods(from: -1000, to: 1000).map(\.start) == [-1000, -100, 100])
        #expect(TZif.parse(Self.patched(bytes, at: 4, Array("2".utf8))) == nil)  // claims version 2, has no second header
    }
}

/// TZif bytes for tests (RFC 8536 §3): a version 1 block of one type and one
/// character as zic's slim files have, then the version 2+ header and data.
enum TZifBytes {
    static func hex(_ text: String) -> [UInt8] {
        let digits = text.utf8.compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    static func header(_ version: UInt8, timeCount: Int, typeCount: Int, characterCount: Int) -> [UInt8] {
        Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
            + [0, 0, 0, timeCount, typeCount, characterCount].flatMap { be32(UInt32($0)) }
    }

    static func make(
        version: UInt8 = UInt8(ascii: "2"), transitions: [Int64] = [], indices: [UInt8] = [],
        types: [(offset: Int32, isDaylight: Bool, abbreviation: UInt8)] = [(0, false, 0)],
        characters: [UInt8] = Array("UTC\0".utf8), footer: String = ""
    ) -> [UInt8] {
        let timeSize = version == 0 ? 4 : 8
        var data = transitions.flatMap { instant in
            (0..<timeSize).map { UInt8(truncatingIfNeeded: instant >> (8 * (timeSize - 1 - $0))) }
        }
        data += indices
        data += types.flatMap { be32(UInt32(bitPattern: $0.offset)) + [$0.isDaylight ? 1 : 0, $0.abbreviation] }
        data += characters
        let block = header(version, timeCount: transitions.count, typeCount: types.count, characterCount: characters.count)
            + data
        if version == 0 { return block }
        return header(version, timeCount: 0, typeCount: 1, characterCount: 1) + [0, 0, 0, 0, 0, 0, 0] + block
            + Array("\n\(footer)\n".utf8)
    }
}
