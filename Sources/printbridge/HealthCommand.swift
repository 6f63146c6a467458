import ArgumentParser
import CCurl

/// `printbridge health`: asks the running agent's /healthz on this machine,
/// for a container's HEALTHCHECK (the runtime image has no curl binary;
/// the agent links libcurl anyway).
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask the running agent's /healthz (for Docker's HEALTHCHECK): exit 0 when ready, 1 when not.",
        discussion: """
            Finds the agent's API from API_LISTEN (or --config) as `run` does: 0.0.0.0 and :: are asked on \
            127.0.0.1 and ::1. Prints /healthz's answer. Exit 0 on 200; 1 when the agent answers 503 or \
            cannot be reached; 78 when API_LISTEN is off or not host:port.
            """)

    @Option(name: .long, help: "Seconds to wait for the answer.")
    var timeout: Int = 5

    @OptionGroup var configOption: ConfigOption

    func validate() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be 1 to 300 seconds") }
    }

    func run() throws {
        try configOption.activate()
        guard var (host, port) = try APISetup.listenSetting() else {
            StandardStreams.err("printbridge: API_LISTEN is off: the agent serves no /healthz to ask")
            throw ExitCodes.config
        }
        guard port > 0 else {
            StandardStreams.err("printbridge: API_LISTEN has port 0 (any free port): give the port the agent listens on")
            throw ExitCodes.config
        }
        if host == "0.0.0.0" || host.isEmpty { host = "127.0.0.1" }
        if host == "::" { host = "::1" }
        let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/healthz"
        switch Self.get(url, timeout: timeout) {
        case .success(let (status, body)):
            StandardStreams.out(body.isEmpty ? "HTTP \(status)" : body)
            if status != 200 { throw ExitCode(1) }
        case .failure(let reason):
            StandardStreams.err("printbridge: \(url): \(reason)")
            throw ExitCode(1)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One GET with libcurl's easy interface: the status and the body (at most 64 KB).
    static func get(_ url: String, timeout: Int) -> Result<(Int, String), Failure> {
        guard let handle = curl_easy_init() else { return .failure(Failure(description: "libcurl could not start")) }
        defer { curl_easy_cleanup(handle) }
        final class Body { var bytes: [UInt8] = [] }
        let body = Body()
        let unmanaged = Unmanaged.passUnretained(body)
        _ = url.withCString { pb_curl_easy_setopt_ptr(handle, CURLOPT_URL, $0) }
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT, timeout)
        _ = pb_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = "*".withCString { pb_curl_easy_setopt_ptr(handle, CURLOPT_NOPROXY, $0) }  // never through a proxy
        _ = pb_curl_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, unmanaged.toOpaque())
        _ = pb_curl_easy_setopt_func(handle, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            guard let data, let user else { return 0 }
            let body = Unmanaged<Body>.fromOpaque(user).takeUnretainedValue()
            let length = size * count
            if body.bytes.count < 65536 {
                body.bytes += UnsafeRawBufferPointer(start: data, count: length).prefix(65536 - body.bytes.count)
            }
            return length
        }
        let code = curl_easy_perform(handle)
        withExtendedLifetime(body) {}
        guard code == CURLE_OK else {
            return .failure(Failure(description: String(cString: curl_easy_strerror(code))))
        }
        var status = 0
        _ = pb_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success((status, String(decoding: body.bytes, as: UTF8.self)))
    }
}
