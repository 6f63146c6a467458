import ArgumentParser

/// Why a command stopped short. Thrown from anywhere in a command; `Entry`
/// is the one place that writes its line to stderr and exits with its code.
struct CommandFailure: Error, CustomStringConvertible {
    /// sysexits-style kinds, documented in README and `printbridge --help`.
    enum Kind: Sendable {
        /// `health`: the agent answered unhealthy, or not at all.
        case unhealthy
        /// An input file could not be read at all, or no such device (EX_NOINPUT).
        case noInput
        /// A push could not be delivered (EX_UNAVAILABLE).
        case unavailable
        /// The system refused a resource: a thread could not be started (EX_OSERR).
        case system
        /// An output file could not be created (EX_CANTCREAT).
        case cannotCreate
        /// Configuration is invalid: settings, devices file, state directory, key file (EX_CONFIG).
        case config
    }

    let kind: Kind
    /// The line for stderr, without "printbridge: "; nil when the command has said it already.
    let message: String?

    static func unhealthy(_ message: String? = nil) -> Self { Self(kind: .unhealthy, message: message) }
    static func noInput(_ message: String? = nil) -> Self { Self(kind: .noInput, message: message) }
    static func unavailable(_ message: String? = nil) -> Self { Self(kind: .unavailable, message: message) }
    static func system(_ message: String? = nil) -> Self { Self(kind: .system, message: message) }
    static func cannotCreate(_ message: String? = nil) -> Self { Self(kind: .cannotCreate, message: message) }
    static func config(_ message: String? = nil) -> Self { Self(kind: .config, message: message) }

    /// The exit code of each kind: the one mapping.
    var exitCode: ExitCode {
        switch kind {
        case .unhealthy: return ExitCode(1)
        case .noInput: return ExitCode(66)
        case .unavailable: return ExitCode(69)
        case .system: return ExitCode(71)
        case .cannotCreate: return ExitCode(73)
        case .config: return ExitCode(78)
        }
    }

    var description: String { message ?? "exit \(exitCode.rawValue)" }
}
