/// The integrations PrintBridge knows, each in its own file beside this one.
/// Adding one is its file and its line here (docs/ADDING.md).
extension PrinterProfile {
    /// The built-in profiles, in the order a tie between them is decided.
    public static let builtIn: [PrinterProfile] = [.bambuLab, .octoPrint, .prusaLink, .moonraker]

    /// The profile a printer reads through until its status entity says
    /// which integration it is, and the one a mapped printer without a
    /// `profile:` starts from: ha-bambulab's, whose names are the defaults
    /// (DESIGN.md, "Printers and entities").
    public static var `default`: PrinterProfile { bambuLab }

    /// The HA event types the built-in integrations fire, for the session's
    /// subscriptions.
    public static let builtInBusEventTypes = busEventTypes(of: builtIn)
}
