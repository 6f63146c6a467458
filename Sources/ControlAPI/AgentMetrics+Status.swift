import PrintBridgeCore

/// What /healthz and the status page say of the agent's connections and pushes.
extension AgentMetrics {
    /// One push's end as the status page shows it (token shortened).
    public struct RecentPush: Sendable, Hashable {
        public var at: EpochTime
        public var kind: Push.Kind
        public var event: Push.Event
        public var printer: String
        public var device: String
        /// delivered, rejected, expired, superseded or dry_run.
        public var outcome: String
        /// APNs's reason for a rejection, empty otherwise.
        public var reason: String
    }

    /// What the status page shows of the agent's connections and pushes.
    public struct Overview: Sendable {
        public var haConnected: Bool
        /// Seconds since the connection was lost (or since start, never connected).
        public var haAwaySeconds: Int
        public var haReconnects: Int
        public var lastEventAge: Int?
        public var apnsMode: String
        public var apnsLastPush: String
        public var outbox: Int
        /// The last pushes' ends, newest first.
        public var recentPushes: [RecentPush]
    }

    /// The connections and the last pushes, for the status page.
    public func overview() -> Overview {
        let now = clock.now().seconds
        let lastEvent = counts.lastEvent
        return state.withLock { state in
            Overview(
                haConnected: state.haConnected,
                haAwaySeconds: state.haConnected ? 0 : Int(now - (state.haDisconnectedSince ?? now)),
                haReconnects: state.haReconnects, lastEventAge: lastEvent > 0 ? max(0, Int(now - lastEvent)) : nil,
                apnsMode: apnsMode,
                apnsLastPush: state.apnsReachable.map { $0 ? "answered" : "unanswered" } ?? "none",
                outbox: state.outboxCount, recentPushes: state.recentPushes.reversed())
        }
    }

    /// /healthz: 200 while HA is connected (or has been away less than the
    /// grace period), else 503; with the reason.
    public func health() -> (status: Int, body: String) {
        let now = clock.now().seconds
        return state.withLock { state in
            let away = state.haDisconnectedSince.map { now - $0 } ?? 0
            let healthy = state.haConnected || away < haGracePeriod
            let body = JSONText.object([
                ("status", JSONText.quoted(healthy ? "ok" : "unhealthy")),
                ("ha", JSONText.quoted(state.haConnected ? "connected" : "disconnected")),
                ("haDisconnectedSeconds", state.haConnected ? "0" : String(Int(away))),
                ("apns", JSONText.quoted(apnsMode)),
                ("apnsLastPush", JSONText.quoted(state.apnsReachable.map { $0 ? "answered" : "unanswered" } ?? "none")),
                ("outbox", String(state.outboxCount)),
                ("outboxOldestSeconds", String(state.outboxOldest.map { max(0, Int(now - $0)) } ?? 0)),
            ])
            return (healthy ? 200 : 503, body)
        }
    }
}
