import PrintBridgeCore

/// Every setting the agent reads, parsed once from its sources (command
/// line > environment > settings file > systemd credentials) into typed
/// values, with every problem found on the way. Commands take what they
/// need from one `Settings` value; SIGHUP compares two.
///
/// Not built on swift-configuration (1.4.0), though it is offered here: its
/// typed reads return nil or the default for a value that does not convert
/// (ConfigReader: "If the configuration value is missing or can't be
/// converted to the expected type, the method returns the default value
/// instead"), where a wrong value must stop the agent with a clear line; its
/// YAML files need Yams and report neither a line nor an unknown key; and
/// systemd's credentials stand for *path* settings here (HA_TOKEN_FILE), not
/// for values keyed by file name as its DirectoryFilesProvider reads them.
/// What would remain for it, a lookup in four dictionaries in order, is
/// `SettingSources.value(of:)`.
public struct Settings: Sendable {
    /// The part of the agent a setting belongs to; a command checks the
    /// problems of the parts it uses.
    public enum Section: Hashable, Sendable {
        case homeAssistant, api, apns, delivery, planner, log, state
    }

    public enum Source: String, Hashable, Sendable {
        case commandLine = "command line"
        case environment
        case file
        case credentials = "systemd credentials"
    }

    /// A setting's text as given, and where it came from.
    public struct Value: Hashable, Sendable {
        public let text: String
        public let source: Source

        public init(text: String, source: Source) {
            self.text = text
            self.source = source
        }
    }

    public let sources: SettingSources
    /// The value of every catalog setting that is set.
    public let values: [String: Value]
    /// Every problem, in catalog order.
    public let problems: [SettingProblem]

    public let homeAssistant: HomeAssistant
    public let api: API
    public let apns: APNs
    public let delivery: Delivery
    public let planner: PlannerConfiguration
    public let log: Log
    /// Where the device store lives.
    public let state: StateLocation

    /// Printers mapped by hand in the settings file.
    public var printers: [MappedPrinter] { sources.file?.printers ?? [] }
    public var file: SettingsFile? { sources.file }

    public init(sources: SettingSources) {
        var reader = SettingReader(sources: sources)
        homeAssistant = HomeAssistant(&reader)
        api = API(&reader)
        apns = APNs(&reader)
        delivery = Delivery(&reader)
        planner = Self.planner(&reader)
        log = Log(&reader)
        state = StateLocation(&reader)
        self.sources = sources
        values = reader.values
        problems = reader.problems.enumerated().sorted {
            let left = $0.element.setting.flatMap { SettingCatalog.position[$0] } ?? Int.max
            let right = $1.element.setting.flatMap { SettingCatalog.position[$0] } ?? Int.max
            return (left, $0.offset) < (right, $1.offset)
        }.map(\.element)
    }

    /// The problems of these parts of the agent.
    public func problems(in sections: Set<Section>) -> [SettingProblem] {
        problems.filter { sections.contains($0.section) }
    }

    /// The same settings with the file read again (SIGHUP).
    public func reread() throws(SettingsFile.ParseError) -> Settings {
        Settings(sources: try sources.rereadingFile())
    }

    /// The settings whose value differs in `other`, in catalog order.
    public func changes(to other: Settings) -> [SettingDefinition] {
        SettingCatalog.all.filter { values[$0.name]?.text != other.values[$0.name]?.text }
    }
}
