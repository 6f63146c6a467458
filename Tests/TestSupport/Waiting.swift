import Foundation

/// Waits until `condition` holds, checking it every 50 ms, for at most
/// `seconds`, and says whether it held.
///
/// A deadline, not a sleep: it returns as soon as the condition holds, so a
/// deadline can be generous (tens of seconds) at no cost when things go
/// well, and a loaded machine only makes it wait longer. Wait for the very
/// thing a test then asserts (or for what proves everything that could
/// break a negative assertion has happened), never for a neighbouring one.
@discardableResult
public func waitUntil(upTo seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
}

/// `waitUntil` for a condition that awaits (an HTTP request through
/// URLSession), without holding a thread while it waits.
@discardableResult
public func waitUntil(upTo seconds: Double, asking condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
    return try await condition()
}
