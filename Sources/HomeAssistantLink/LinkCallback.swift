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
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
        // The upgrade request goes out once this returns; libwebsockets then
        // gives HA its context's timeout_secs (5 s in 4.1.6, lib/core/context.c;
        // client-http.c, PENDING_TIMEOUT_AWAITING_SERVER_RESPONSE) to answer.
        // A timer in the loop's next pass, after the request went, gives it
        // the link's own upgrade timeout instead (`upgradeRequestSent`).
        lws_set_timer_usecs(wsi, 0)
    case LWS_CALLBACK_TIMER:
        link.upgradeRequestSent(wsi)
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        link.established(wsi)
    case LWS_CALLBACK_CLIENT_RECEIVE:
        // A message comes in pieces when it is fragmented or larger than the
        // protocol's rx buffer (LinkContext): the last piece of the last fragment ends it.
        let final = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        link.received(UnsafeRawBufferPointer(start: input, count: length), final: final)
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return link.writable(wsi) ? 0 : -1
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
        link.disconnected(.connectFailed(connectFailure(detail, status: Int(lws_http_client_http_response(wsi)))))
    case LWS_CALLBACK_CLIENT_CLOSED:
        link.closed()
    case LWS_CALLBACK_WSI_DESTROY:
        // Gone without either of the two above: timed out waiting for the
        // upgrade's answer (the connection is still HTTP's then, and 4.1.6
        // tells CLIENT_CONNECTION_ERROR only for a WebSocket's:
        // lib/core-net/close.c, "closed before established").
        link.destroyed(wsi)
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        link.wokenUp()
    default:
        break
    }
    return 0
}

/// libwebsockets' words for a failed connect, made plain where it names the
/// upgrade (its "HS: …" reasons, lib/roles/ws/client-ws.c): the status HA
/// answered instead of 101 when there was one.
func connectFailure(_ detail: String, status: Int) -> String {
    if detail.hasPrefix("closed before established") {
        return "Home Assistant closed the connection, or did not answer within \(HomeAssistantLink.upgradeTimeout) s, "
            + "during the WebSocket upgrade"
    }
    guard detail.hasPrefix("HS:") else { return detail }
    if status != 0 && status != 101 {
        return "Home Assistant answered \(status) to the WebSocket upgrade"
            + (status == 401 || status == 403 ? " (not allowed)" : status == 404 ? " (no WebSocket API at that path)" : "")
    }
    return "Home Assistant's answer to the WebSocket upgrade was refused (libwebsockets: \(detail))"
}
