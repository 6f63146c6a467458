@testable import ControlAPI
import DeviceStore
import Foundation
import PrintBridgeCore
import Synchronization
import Testing

/// Requests as a phone, the admin or a stranger sends them, handed
/// straight to the API's handler (no socket), from a chosen address.
protocol DirectCalls {
    var api: ControlAPI { get }
    var store: DeviceStore { get }
}

/// What a stand-in for the agent or Home Assistant was asked, from any thread.
final class Recorded: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ item: String) { list.withLock { $0.append(item) } }
    var all: [String] { list.withLock { $0 } }
}

extension DirectCalls {
    static var printerPrefix: String { "x1c_00m09a350100123" }

    /// An empty store in a fresh temporary directory.
    static func temporaryStore(_ name: String) throws -> DeviceStore {
        let directory = NSTemporaryDirectory() + "printbridge-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try DeviceStore(directory: directory)
    }

    func send(
        _ method: String, _ path: String, query: String = "", body: String? = nil, json: Bool = true,
        bearer: String? = nil, basic: String? = nil, headers extra: [String: String] = [:], from peer: String = "203.0.113.9"
    ) -> HTTPResponse {
        var headers = ["host": "192.168.1.20:3000"]
        if body != nil, json { headers["content-type"] = "application/json" }
        if let bearer { headers["authorization"] = "Bearer \(bearer)" }
        if let basic { headers["authorization"] = "Basic " + Data("admin:\(basic)".utf8).base64EncodedString() }
        headers.merge(extra) { $1 }
        return api.handle(HTTPRequest(
            method: method, path: path, query: query, headers: headers, body: Array((body ?? "").utf8),
            peer: TrustedNetworks.address(peer)))
    }

    func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body.utf8))) as? [String: Any] ?? [:]
    }

    func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.extraHeaders.first { $0.0 == name }?.1
    }

    /// A paired phone: its credential, and the device it registered with it.
    func pairedPhone(_ byte: String, from peer: String = "203.0.113.9") throws -> (credential: String, device: String) {
        let code = PhoneCredentials.newPairingCode()
        try store.addPairingCode(hash: PhoneCredentials.digest(PhoneCredentials.normalised(code)), expires: SystemClock().now() + 600)
        let paired = send("POST", "/api/pair", body: #"{"code":"\#(code)"}"#, from: peer)
        let credential = try #require(json(paired)["credential"] as? String, "\(paired)")
        let registered = send("POST", "/api/devices/register", body: #"{"apnsToken":"\#(String(repeating: byte, count: 32))","haUrl":"http://ha:8123","printerPrefix":"\#(Self.printerPrefix)"}"#,
                              bearer: credential, from: peer)
        return (credential, try #require(json(registered)["deviceId"] as? String, "\(registered)"))
    }
}
