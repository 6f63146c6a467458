/// The link's events as the consumer takes them: each one taken is counted,
/// so the link knows when to stop and resume reading.
public struct LinkEvents: AsyncSequence, Sendable {
    public typealias Element = LinkEvent
    let link: HomeAssistantLink
    let stream: AsyncStream<LinkEvent>

    public struct AsyncIterator: AsyncIteratorProtocol {
        let link: HomeAssistantLink
        var base: AsyncStream<LinkEvent>.AsyncIterator

        public mutating func next() async -> LinkEvent? {
            guard let event = await base.next() else { return nil }
            link.consumed()
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(link: link, base: stream.makeAsyncIterator())
    }
}
