/// Reading entity states as values. Anything that is not a clean value is
/// nil: such a state carries no information and must never overwrite a
/// known value with a bogus one.
public enum EntityValue {
    /// States that mean "HA does not know right now".
    public static func carriesNoInformation(_ state: String) -> Bool {
        switch state.trimmingWhitespace.lowercased() {
        case "", "unavailable", "unknown", "offline", "none", "null": return true
        default: return false
        }
    }

    /// A plain decimal number (`42`, `-3.5`, `1e3`): no NaN, infinity, hex or spaces inside.
    public static func number(_ state: String) -> Double? {
        let text = state.trimmingWhitespace
        guard !text.isEmpty else { return nil }
        var sawDigit = false
        for (offset, char) in text.utf8.enumerated() {
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                let previous = offset > 0 ? text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: offset - 1)] : nil
                guard previous == nil || previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E") else { return nil }
            default: return nil
            }
        }
        guard sawDigit, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Percent done, 0–100; anything outside is garbage.
    public static func progress(_ state: String) -> Double? {
        guard let value = number(state), (0...100).contains(value) else { return nil }
        return value
    }

    /// A non-negative whole count (layers); fractional zero allowed ("12.0").
    public static func count(_ state: String) -> Int? {
        guard let value = number(state), value >= 0, value < 10_000_000, value.rounded() == value else {
            return nil
        }
        return Int(value)
    }

    /// A temperature within physical reason for a printer.
    public static func temperature(_ state: String) -> Double? {
        guard let value = number(state), (-100...1000).contains(value) else { return nil }
        return value
    }

    /// Remaining time in whole seconds, from the entity's `unit_of_measurement`:
    /// `s`, `min`, `h` or `d` (HA's duration units). No unit means minutes
    /// (docs/BEHAVIOUR.md, "Remaining time"). Unknown units and negative
    /// values are garbage.
    public static func remainingSeconds(_ state: String, unit: String?) -> Int? {
        guard let value = number(state), value >= 0 else { return nil }
        let factor: Double
        switch unit?.trimmingWhitespace.lowercased() {
        case nil, "", "min", "mins", "minute", "minutes", "m": factor = 60
        case "h", "hr", "hrs", "hour", "hours": factor = 3600
        case "s", "sec", "secs", "second", "seconds": factor = 1
        case "d", "day", "days": factor = 86400
        case "ms": factor = 0.001
        default: return nil
        }
        let seconds = (value * factor).rounded()
        guard seconds < 1e9 else { return nil }
        return Int(seconds)
    }
}
