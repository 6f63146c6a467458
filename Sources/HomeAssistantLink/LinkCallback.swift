import CLibWebSockets

/// libwebsockets' protocol callback: finds the link through the context's
/// user pointer (the link outlives its context) and hands the event over.
func linkCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let pointer = lws_context_user(context) else { return 0 }
    let link = Unmanaged<HomeAssistantLink>.fromOpaque(pointer).takeUnretainedValue()
    if let id = LinkFetch.id(fromTag: lws_get_opaque_user_data(wsi)) {
        // An HTTP GET beside the WebSocket; gone once it was answered.
        guard let fetch = link.fetch(id) else {
            // Timed out or cut off: whatever still comes on it closes it.
            let data = [LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP, LWS_CALLBACK_RECEIVE_CLIENT_HTTP, LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ]
            return data.contains(reason) ? -1 : 0
        }
        return fetchCallback(link, fetch, wsi, reason, input, length)
    }
    switch reason {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        link.disconnected(.connectFailed(detail))
    // A RAW connection: TLS (wss://), the upgrade and the frames are the link's (`LinkContext.connect`).
    case LWS_CALLBACK_RAW_CONNECTED:
        link.rawConnected(wsi)
    case LWS_CALLBACK_RAW_RX:
        return link.rawReceived(wsi, UnsafeRawBufferPointer(start: input, count: length)) ? 0 : -1
    case LWS_CALLBACK_RAW_WRITEABLE:
        return link.rawWritable(wsi) ? 0 : -1
    case LWS_CALLBACK_RAW_CLOSE:
        link.rawClosed()
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        link.wokenUp()
    default:
        break
    }
    return 0
}
