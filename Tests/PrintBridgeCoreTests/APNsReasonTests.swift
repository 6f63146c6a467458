import PrintBridgeCore
import Testing

/// APNs' reasons are compared and counted by case; a reason Apple adds later
/// keeps its text in logs but one bounded metric label.
@Suite struct APNsReasonTests {
    @Test(arguments: [
        ("BadDeviceToken", APNsReason.badDeviceToken), ("Unregistered", .unregistered),
        ("ExpiredProviderToken", .expiredProviderToken), ("TooManyRequests", .tooManyRequests),
        ("UnrelatedKeyIdInToken", .unrelatedKeyID), ("BadCollapseId", .badCollapseID),
    ])
    func applesWordsAreCases(text: String, reason: APNsReason) {
        #expect(APNsReason(text) == reason)
        #expect(reason.text == text && reason.metricLabel == text)
    }

    @Test func anUnknownReasonKeepsItsTextAndOneLabel() {
        let reason = APNsReason("SomethingNew")
        #expect(reason == .other("SomethingNew") && reason.text == "SomethingNew")
        #expect(reason.metricLabel == "other" && reason.advice == nil)
        #expect(APNsReason("badDeviceToken") == .other("badDeviceToken"), "Apple's words are case-sensitive")
    }

    @Test func onlyAWrongEnvironmentOrAppDisablesAToken() {
        #expect(APNsReason.badDeviceToken.disablesToken && APNsReason.deviceTokenNotForTopic.disablesToken)
        #expect(!APNsReason.unregistered.disablesToken && !APNsReason.badTopic.disablesToken)
    }

    @Test func outcomesHaveBoundedMetricLabels() {
        #expect(PushOutcome.delivered(apnsID: "x").metricReason == "")
        #expect(PushOutcome.rejected(status: 400, reason: "BadTopic", tokenAction: nil).metricReason == "BadTopic")
        #expect(PushOutcome.rejected(status: 502, reason: .other("HTTP 502"), tokenAction: nil).metricReason == "other")
        #expect(PushOutcome.gaveUp(cause: .connection("Failed to connect to 127.0.0.1 port 1"), attempts: 5).metricReason == "connection")
        #expect(PushOutcome.gaveUp(cause: .busy(status: 503, reason: .serviceUnavailable), attempts: 5).metricReason == "ServiceUnavailable")
        #expect(PushOutcome.gaveUp(cause: .busy(status: 503, reason: .serviceUnavailable), attempts: 5).reason == "503 ServiceUnavailable")
    }
}
