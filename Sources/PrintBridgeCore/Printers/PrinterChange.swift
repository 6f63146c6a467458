/// One printer's snapshot before and after an entity update that changed it.
public struct PrinterChange: Hashable, Sendable {
    public var field: PrinterField
    public var previous: PrinterSnapshot
    public var current: PrinterSnapshot

    public init(field: PrinterField, previous: PrinterSnapshot, current: PrinterSnapshot) {
        self.field = field
        self.previous = previous
        self.current = current
    }

    public var prefix: String { current.prefix }

    /// The normalised status changed to a known value.
    public var statusChanged: Bool { current.status != nil && current.status != previous.status }
}
