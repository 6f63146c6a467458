import ArgumentParser

/// sysexits-style codes, documented in README and `printbridge --help`.
enum ExitCodes {
    /// An input file could not be read at all (EX_NOINPUT).
    static let noInput = ExitCode(66)
    /// The system refused a resource: a thread could not be started (EX_OSERR).
    static let system = ExitCode(71)
    /// An output file could not be created (EX_CANTCREAT).
    static let cannotCreate = ExitCode(73)
    /// A push could not be delivered (EX_UNAVAILABLE).
    static let unavailable = ExitCode(69)
    /// Configuration is invalid: devices file, option values (EX_CONFIG).
    static let config = ExitCode(78)
}
