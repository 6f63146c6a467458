import PrintBridgeCore

/// The seed's error shape: {"success":false,"error":"…","details":{field: [messages]}}.
enum APIError {
    static func response(_ status: Int, _ message: String, details: [String: [String]] = [:]) -> HTTPResponse {
        var members: [(String, String)] = [("success", "false"), ("error", JSONText.quoted(message))]
        if !details.isEmpty {
            members.append(("details", JSONText.object(details.sorted { $0.key < $1.key }.map { field, messages in
                (field, "[" + messages.map(JSONText.quoted).joined(separator: ",") + "]")
            })))
        }
        return HTTPResponse(status: status, body: JSONText.object(members))
    }
}
