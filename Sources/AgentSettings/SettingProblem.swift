/// A value that cannot be used, or a setting a command needs that is not
/// set. The message names settings as the environment does (HA_URL);
/// `Settings.naming(_:)` names those from the file by key and line.
public struct SettingProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public let section: Settings.Section
    /// The setting at fault, when it is one (not e.g. two planner values that clash).
    public let setting: String?
    public let message: String

    public init(_ section: Settings.Section, _ setting: String?, _ message: String) {
        self.section = section
        self.setting = setting
        self.message = message
    }

    public var description: String { message }
}
