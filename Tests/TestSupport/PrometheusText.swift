import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A Prometheus text exposition (format 0.0.4) read back: each family's HELP,
/// TYPE and samples. Strict where the format is: a HELP or TYPE line before
/// the family's samples and once, a family's lines together, label values
/// quoted with `\\`, `\"` and `\n` escapes, numbers as Go's ParseFloat reads them.
public struct PrometheusText: Sendable {
    public struct Sample: Sendable, Equatable {
        /// As written: `x_bucket` for a histogram `x`'s bucket.
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct Family: Sendable {
        public var help: String?
        public var type: String?
        public var samples: [Sample] = []
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    public private(set) var families: [String: Family] = [:]

    public init(_ text: String) throws {
        var current: String?
        var done: Set<String> = []
        func enter(_ family: String, _ line: Substring) throws {
            guard family != current else { return }
            if let current { done.insert(current) }
            guard !done.contains(family) else { throw Malformed(description: "\(family) again, apart: \(line)") }
            current = family
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard words.count >= 3, words[0] == "#", words[1] == "HELP" || words[1] == "TYPE" else { continue }
                let name = String(words[2])
                let text = words.count > 3 ? String(words[3]) : ""
                try enter(name, line)
                if words[1] == "HELP" {
                    guard families[name]?.help == nil else { throw Malformed(description: "second HELP: \(line)") }
                    families[name, default: Family()].help = text
                } else {
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(text),
                          families[name]?.type == nil, families[name]?.samples.isEmpty ?? true
                    else { throw Malformed(description: "TYPE: \(line)") }
                    families[name, default: Family()].type = text
                }
                continue
            }
            let sample = try Self.sample(line)
            let family = family(of: sample.name)
            try enter(family, line)
            families[family, default: Family()].samples.append(sample)
        }
    }

    /// `x` for `x_bucket`, `x_sum` and `x_count` when `x` is a histogram or summary.
    private func family(of sample: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where sample.hasSuffix(suffix) {
            let base = String(sample.dropLast(suffix.count))
            if let type = families[base]?.type, type == "histogram" || type == "summary" { return base }
        }
        return sample
    }

    private static func sample(_ line: Substring) throws -> Sample {
        let bad = Malformed(description: "sample: \(line)")
        var rest = line[...]
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty, !name.first!.isNumber else { throw bad }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                rest = rest.dropFirst(key.count)
                guard !key.isEmpty, rest.hasPrefix("=\"") else { throw bad }
                rest = rest.dropFirst(2)
                var value = ""
                while let char = rest.first, char != "\"" {
                    rest = rest.dropFirst()
                    guard char == "\\" else { value.append(char); continue }
                    switch rest.first {
                    case "\\": value.append("\\")
                    case "\"": value.append("\"")
                    case "n": value.append("\n")
                    default: throw bad
                    }
                    rest = rest.dropFirst()
                }
                guard rest.first == "\"", labels[String(key)] == nil else { throw bad }
                labels[String(key)] = value
                rest = rest.dropFirst()
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { throw bad }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw bad }
        let number = rest.dropFirst()
        let value: Double? = switch number {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(number)
        }
        guard let value else { throw bad }
        return Sample(name: String(name), labels: labels, value: value)
    }

    /// The value of the one sample named `name` with exactly these labels.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        families[family(of: name)]?.samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// `promtool check metrics` (Debian's `prometheus` package) on `text`:
    /// its exit status (0: nothing to say) and what it said. A missing
    /// promtool is an answer too (status 127), not a pass.
    public static func promtool(_ text: String) throws -> CommandRunner.Result {
        let path = NSTemporaryDirectory() + "exposition-\(getpid())-\(UUID().uuidString).txt"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let input = open(path, O_RDONLY)
        guard input >= 0 else { throw Malformed(description: "cannot read \(path) back") }
        defer { close(input) }
        let child = try ChildProcess(
            "/usr/bin/env", ["promtool", "check", "metrics"], stdin: .descriptor(input), stdout: .pipe, stderr: .pipe)
        let (stdout, stderr) = CommandRunner.readToEnd(child.stdoutPipe, child.stderrPipe)
        close(child.stdoutPipe)
        close(child.stderrPipe)
        return .init(
            status: child.waitForExit(), stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
