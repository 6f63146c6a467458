/// The body of a test push (`Push.Event.test`): an alert saying that
/// pushes from PrintBridge arrive, in the phone's language, in a thread of
/// its own. It is about no printer: no `printerState`, so the app's
/// printer views take no notice of it, and no buttons.
///
/// ```json
/// {"aps":{"alert":{"body":"Push notifications from PrintBridge work 🎉","title":"PrintBridge Test"},
///         "sound":"default","thread-id":"printbridge-test"}}
/// ```
public struct TestPayload: Encodable, Hashable, Sendable {
    /// Its `thread-id`, collapse id and the printer it is filed under
    /// (logs, metrics, the phone's notification history).
    public static let thread = "printbridge-test"
    /// Seconds APNs keeps trying: a test that arrives hours later would
    /// tell of a phone that was away, not of the setup being tried.
    public static let expiration: Double = 3600

    public var aps: AlertPayload.APS

    public init(catalog: Catalog = .english) {
        aps = AlertPayload.APS(
            alert: .init(title: catalog.text(.testTitle), body: catalog.text(.testBody)), sound: "default",
            threadID: Self.thread, interruptionLevel: nil, category: nil)
    }

    /// The JSON body (a few hundred bytes: fixed texts).
    public func encoded() throws(PayloadError) -> [UInt8] {
        let bytes = PayloadEncoding.encode(self)
        guard bytes.count <= PayloadLimits.maximumPayloadBytes else { throw PayloadError(bytes: bytes.count) }
        return bytes
    }
}
