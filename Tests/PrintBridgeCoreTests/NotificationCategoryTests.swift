import Testing
@testable import PrintBridgeCore

/// The category an alert names decides the buttons the phone shows: only
/// actions the agent will carry out for the printer's status (issue 31).
@Suite struct NotificationCategoryTests {
    func aps(_ event: Push.Event, _ status: PrintStatus) throws -> [String: JSONValue] {
        let payload = AlertPayload(event: event, prefix: "x1c", printerName: "X1C", fileName: "benchy", status: status, progress: 40)
        let json = try JSONParser.parse(try payload.encoded())
        return try #require(json["aps"]?.objectValue)
    }

    @Test func aRunningPrintOffersPauseAndStopAPausedOneResumeAndStop() throws {
        #expect(try aps(.started, .running)["category"] == .string("PRINT_RUNNING"))
        #expect(try aps(.milestone, .running)["category"] == .string("PRINT_RUNNING"))
        #expect(try aps(.resumed, .running)["category"] == .string("PRINT_RUNNING"))
        #expect(try aps(.paused, .paused)["category"] == .string("PRINT_PAUSED"))
        #expect(try aps(.printerError, .paused)["category"] == .string("PRINT_PAUSED"))
        #expect(NotificationCategory.printRunning.actions == [.pause, .stop])
        #expect(NotificationCategory.printPaused.actions == [.resume, .stop])
        #expect(try aps(.printerError, .preparing)["category"] == .string("PRINT_PREPARING"))
        #expect(NotificationCategory.printPreparing.actions == [.stop])
    }

    @Test func anEndedPrintOrASilentPrinterOffersNoButtons() throws {
        for (event, status) in [(Push.Event.complete, PrintStatus.complete), (.failed, .failed), (.cancelled, .cancelled),
                                (.bedCooled, .complete), (.offline, .running), (.printerError, .idle)] {
            #expect(try aps(event, status)["category"] == nil, "\(event) \(status)")
        }
    }

    /// Every button a category shows is one the API accepts in that status.
    @Test func everyButtonOfACategoryFitsItsStatus() {
        for event in [Push.Event.started, .milestone, .paused, .resumed, .printerError, .backOnline] {
            for status in PrintStatus.allCases {
                guard let category = NotificationCategory(event: event, status: status) else { continue }
                for action in category.actions {
                    #expect(action.refusal(status: status) == nil,
                            "\(category) offers \(action) when \(status)")
                }
            }
        }
    }
}
