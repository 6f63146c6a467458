extension PrinterNotificationState {
    /// A status seen but not yet acted on: a verdict held back for a moment
    /// (a start settling, a failure that may turn out a cancel, a pause
    /// waiting for its reason, a print that may come back from idle; which
    /// is held how long is `HoldRule`'s). Acted on at `due` unless a later
    /// status settles it first; either way it goes as a whole.
    public struct Held: Hashable, Sendable, Codable {
        /// The status seen.
        public var status: PrintStatus
        /// When it is acted on, if nothing settles it before.
        public var due: EpochTime
        /// The print's file when a print under way was held as idle or
        /// preparing: one that comes back with the same file flickered.
        public var file: String?

        public init(status: PrintStatus, due: EpochTime, file: String? = nil) {
            self.status = status
            self.due = due
            self.file = file
        }
    }
}
