import CLibWebSockets

#if canImport(Glibc)
import Glibc
#endif

/// The libwebsockets context of one link, and what it must outlive: its
/// protocol table and the C strings the connect info points into. Created
/// and destroyed here; used only on the link's thread (but the wake-up,
/// `cancelService`, which libwebsockets allows from any thread).
final class LinkContext {
    /// nil when libwebsockets could not be set up.
    let context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let name: UnsafeMutablePointer<CChar>
    private let host: UnsafeMutablePointer<CChar>
    private let path: UnsafeMutablePointer<CChar>
    private let caFile: UnsafeMutablePointer<CChar>?
    private let get = strdup("GET")!
    private let http11 = strdup("http/1.1")!
    private let endpoint: HAEndpoint

    /// `owner` is what `lws_context_user` gives the callbacks (the link,
    /// which owns this and so outlives it).
    init(endpoint: HAEndpoint, caFile: String?, owner: UnsafeMutableRawPointer) {
        self.endpoint = endpoint
        name = strdup("printbridge-ha")!
        host = strdup(endpoint.host)!
        path = strdup(endpoint.path)!
        self.caFile = caFile.map { strdup($0)! }
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = linkCallback
        protocols[0].rx_buffer_size = 65536
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        // TLS (and the CA store it loads: ~370 KB and 30,000 allocations) only
        // for wss://; a plain ws:// connection, as to the add-on's supervisor
        // or HA on the same host, does without.
        info.options = endpoint.secure ? UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) : 0
        info.gid = -1  // do not change user or group
        info.uid = -1
        // Left at 0, libwebsockets sizes two zero-filled tables by the process
        // file limit: 16 bytes per possible descriptor, 16 MB resident under
        // Docker's default limit of 1,048,576. This context holds one
        // connection and its wake-up pipe; a small table costs nothing.
        info.fd_limit_per_thread = 16
        // libwebsockets reads at most 4 KB a wake-up (pt_serv_buf_size left
        // at its default, HomeAssistantLink.readBufferBytes): the link gets
        // only the printers' entities (a few frames a second while printing),
        // and a 5 MB snapshot is read in its 4 KB reads (DaemonProtocolTests).
        // Larger reads (32 and 256 KB) paid off only for thousands of
        // household events a second, and were resident from the start.
        // The CA file is loaded beside the system's CA store
        // (LWS_SSL_CLIENT_USE_OS_CA_CERTS in Debian's build:
        // lib/tls/openssl/openssl-client.c, SSL_CTX_set_default_verify_paths,
        // then SSL_CTX_load_verify_locations of it).
        info.client_ssl_ca_filepath = self.caFile.map { UnsafePointer($0) }
        lws_set_log_level(getenv("PRINTBRIDGE_LWS_LOG") != nil ? 0x7F : LLL_ERR, nil)
        info.user = owner
        context = lws_create_context(&info)
    }

    deinit {
        if let context { lws_context_destroy(context) }
        protocols.deallocate()
        for string in [name, host, path, get, http11] { free(string) }
        if let caFile { free(caFile) }
    }

    /// Starts the WebSocket connection to the endpoint (nil: failed at
    /// once): libwebsockets' own ws/wss client does the upgrade (RFC 6455
    /// §4.1), the framing (answering pings, the close handshake) and, for
    /// wss://, TLS with the context's CA settings.
    func connect() -> OpaquePointer? {
        var info = lws_client_connect_info()
        info.context = context
        info.address = UnsafePointer(host)
        info.host = UnsafePointer(host)
        info.origin = UnsafePointer(host)
        info.path = UnsafePointer(path)
        info.port = Int32(endpoint.port)
        info.ssl_connection = endpoint.secure ? Int32(LCCSCF_USE_SSL.rawValue) : 0
        info.ietf_version_or_minus_one = -1
        info.local_protocol_name = UnsafePointer(name)
        // No `pwsi`: libwebsockets would keep that address and write through
        // it when a connection in its handshake is dropped, long after a
        // `withUnsafeMutablePointer` scope has ended (a crash, seen when a
        // silent server's handshake was timed out). The callbacks say when
        // the connection goes.
        return lws_client_connect_via_info(&info)
    }

    /// Starts an HTTP/1.1 GET of `fetch.path` on the endpoint's host, port
    /// and scheme, tagged with the fetch (nil: failed at once).
    func connect(_ fetch: LinkFetch) -> OpaquePointer? {
        var info = lws_client_connect_info()
        info.context = context
        info.address = UnsafePointer(host)
        info.host = UnsafePointer(host)
        info.origin = UnsafePointer(host)
        info.path = UnsafePointer(fetch.path)
        info.port = Int32(endpoint.port)
        info.ssl_connection = endpoint.secure ? Int32(LCCSCF_USE_SSL.rawValue) : 0
        info.method = UnsafePointer(get)
        info.alpn = UnsafePointer(http11)
        info.local_protocol_name = UnsafePointer(name)
        info.opaque_user_data = fetch.tag
        return lws_client_connect_via_info(&info)
    }

    /// Waits for sockets, timers or a wake-up, and handles what came.
    func service() { lws_service(context, 0) }

    /// Wakes `service` from any thread (`LWS_CALLBACK_EVENT_WAIT_CANCELLED`).
    func cancelService() {
        if let context { lws_cancel_service(context) }
    }

    /// Arms `timer` to fire after `seconds` (monotonic), replacing its previous time.
    func schedule(_ timer: LinkTimer, after seconds: Double) {
        lws_sul_schedule(context, 0, timer.list, linkTimerCallback, lws_usec_t(max(0, seconds) * 1_000_000))
    }
}
