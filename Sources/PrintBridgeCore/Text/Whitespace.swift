extension Character {
    /// `isWhitespace`, with ASCII (nearly all the text HA, the settings and
    /// APNs send) answered directly instead of through a Unicode property
    /// lookup.
    @inlinable public var isWhitespaceCharacter: Bool {
        if let ascii = asciiValue { return ascii == 0x20 || (0x09...0x0D).contains(ascii) }
        return isWhitespace
    }
}

extension Substring {
    /// Without leading and trailing whitespace ("\r\n" is one Character).
    public var trimmingWhitespace: Substring {
        var slice = self
        while let first = slice.first, first.isWhitespaceCharacter { slice.removeFirst() }
        while let last = slice.last, last.isWhitespaceCharacter { slice.removeLast() }
        return slice
    }
}

extension String {
    /// Without leading and trailing whitespace ("\r\n" is one Character).
    public var trimmingWhitespace: Substring { Substring(self).trimmingWhitespace }
}

extension StringProtocol {
    /// Without `character` at either end.
    public func trimming(_ character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
