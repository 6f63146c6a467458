import ArgumentParser

/// sysexits-style codes, documented in README and `printbridge --help`.
enum ExitCodes {
    /// An input file could not be read at all (EX_NOINPUT).
    static let noInput = ExitCode(66)
    /// Configuration is invalid: devices file, option values (EX_CONFIG).
    static let config = ExitCode(78)
}
