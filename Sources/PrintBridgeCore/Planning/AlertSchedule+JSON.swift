import TimeZones

/// An `AlertSchedule` as the app reads and writes it: the settings PATCH's
/// optional keys (beside the switches) and the device's `schedule` object;
/// the devices file of `replay` takes the same keys.
///
/// - `quietHours`: `{"start": "22:00", "end": "07:00", "timeZone":
///   "Europe/Berlin", "breakthrough": true}` (breakthrough optional, true
///   by default); null: none.
/// - `milestones`: a list of percentages (`[50]`), or `{"every": 10}`; null:
///   the agent's `MILESTONES`.
/// - `minutesLeft`: 1…1440; null or 0: off.
/// - `retellAfterMinutes`: 0…1440 (0: never; 15 by default).
extension AlertSchedule {
    /// What a PATCH changes: nil leaves a part as it is; `.some(nil)` clears it.
    public struct Patch: Hashable, Sendable {
        public var quietHours: QuietHours??
        public var milestones: [Int]??
        public var minutesLeft: Int??
        public var retellAfterMinutes: Int?

        public init(
            quietHours: QuietHours?? = nil, milestones: [Int]?? = nil, minutesLeft: Int?? = nil,
            retellAfterMinutes: Int? = nil
        ) {
            self.quietHours = quietHours
            self.milestones = milestones
            self.minutesLeft = minutesLeft
            self.retellAfterMinutes = retellAfterMinutes
        }

        /// The whole schedule, every part given.
        public init(_ schedule: AlertSchedule) {
            self.init(
                quietHours: .some(schedule.quietHours), milestones: .some(schedule.milestones),
                minutesLeft: .some(schedule.minutesLeft), retellAfterMinutes: schedule.retellAfterMinutes)
        }

        public var isEmpty: Bool { self == Patch() }

        public func applied(to schedule: AlertSchedule) -> AlertSchedule {
            var result = schedule
            if let quietHours { result.quietHours = quietHours }
            if let milestones { result.milestones = milestones }
            if let minutesLeft { result.minutesLeft = minutesLeft }
            if let retellAfterMinutes { result.retellAfterMinutes = retellAfterMinutes }
            return result
        }
    }

    /// The keys a settings body may hold for the schedule.
    public static let keys: Set<String> = ["quietHours", "milestones", "minutesLeft", "retellAfterMinutes"]

    /// Reads the schedule's keys of a settings body; each problem is named by its key.
    public static func patch(_ body: [String: JSONValue], problems: inout [String: [String]]) -> Patch {
        var patch = Patch()
        if let value = body["quietHours"] {
            if value == .null {
                patch.quietHours = .some(nil)
            } else if let quiet = quietHours(value, problems: &problems) {
                patch.quietHours = .some(quiet)
            }
        }
        if let value = body["milestones"] {
            if value == .null {
                patch.milestones = .some(nil)
            } else if let items = value.arrayValue {
                let numbers = items.compactMap(\.intValue)
                if numbers.count == items.count, let list = milestoneList(numbers) {
                    patch.milestones = .some(list)
                } else {
                    problems["milestones", default: []].append("must be a list of whole percentages from 1 to 99")
                }
            } else if let object = value.objectValue, object.count == 1, let step = object["every"]?.intValue,
                let list = every(step)
            {
                patch.milestones = .some(list)
            } else {
                problems["milestones", default: []].append(
                    "must be a list of percentages ([25, 50, 75]), {\"every\": 10} or null")
            }
        }
        if let value = body["minutesLeft"] {
            if value == .null || value.intValue == 0 {
                patch.minutesLeft = .some(nil)
            } else if let minutes = value.intValue, (1...maximumMinutes).contains(minutes) {
                patch.minutesLeft = .some(minutes)
            } else {
                problems["minutesLeft", default: []].append("must be whole minutes from 1 to \(maximumMinutes), or 0 or null for none")
            }
        }
        if let value = body["retellAfterMinutes"] {
            if let minutes = value.intValue, (0...maximumMinutes).contains(minutes) {
                patch.retellAfterMinutes = minutes
            } else {
                problems["retellAfterMinutes", default: []].append("must be whole minutes from 0 (never) to \(maximumMinutes)")
            }
        }
        return patch
    }

    private static func quietHours(_ value: JSONValue, problems: inout [String: [String]]) -> QuietHours? {
        guard let object = value.objectValue else {
            problems["quietHours", default: []].append(
                "must be {\"start\": \"22:00\", \"end\": \"07:00\", \"timeZone\": \"Europe/Berlin\"} or null")
            return nil
        }
        var found: [String] = []
        for key in object.keys.sorted() where !["start", "end", "timeZone", "breakthrough"].contains(key) {
            found.append("\(key) is not a part of quiet hours")
        }
        let start = object["start"]?.stringValue.flatMap(QuietHours.minutes)
        let end = object["end"]?.stringValue.flatMap(QuietHours.minutes)
        if start == nil { found.append("start must be a time of day as HH:MM") }
        if end == nil { found.append("end must be a time of day as HH:MM") }
        if let start, let end, start == end { found.append("start and end must differ") }
        let zone = object["timeZone"]?.stringValue
        if zone.flatMap(ZoneRules.init(identifier:)) == nil {
            found.append("timeZone must be a time zone this machine knows (an IANA name such as Europe/Berlin)")
        }
        var breakthrough = true
        if let value = object["breakthrough"] {
            if let flag = value.boolValue { breakthrough = flag } else { found.append("breakthrough must be true or false") }
        }
        guard found.isEmpty, let start, let end, let zone else {
            problems["quietHours", default: []] += found
            return nil
        }
        return QuietHours(start: start, end: end, timeZone: zone, breakthrough: breakthrough)
    }

    /// The schedule as the device's `schedule` object shows it.
    public var json: String {
        JSONText.object([
            ("quietHours", quietHours.map { quiet in
                JSONText.object([
                    ("start", JSONText.quoted(QuietHours.text(quiet.start))),
                    ("end", JSONText.quoted(QuietHours.text(quiet.end))),
                    ("timeZone", JSONText.quoted(quiet.timeZone)),
                    ("breakthrough", quiet.breakthrough ? "true" : "false"),
                ])
            } ?? "null"),
            ("milestones", milestones.map { "[" + $0.map(String.init).joined(separator: ",") + "]" } ?? "null"),
            ("minutesLeft", minutesLeft.map(String.init) ?? "null"),
            ("retellAfterMinutes", String(retellAfterMinutes)),
        ])
    }

    /// One line for people (`printbridge devices`, the status page).
    public var summary: String {
        var parts: [String] = []
        if let quiet = quietHours {
            parts.append("quiet \(QuietHours.text(quiet.start))–\(QuietHours.text(quiet.end)) \(quiet.timeZone)"
                + (quiet.breakthrough ? "" : ", nothing breaks through"))
        }
        if let milestones { parts.append("milestones " + milestones.map { "\($0)%" }.joined(separator: " ")) }
        if let minutesLeft { parts.append("\(minutesLeft) min left") }
        parts.append(retellAfterMinutes == 0 ? "never told again" : "told again after \(retellAfterMinutes) min")
        return parts.joined(separator: "; ")
    }
}
