/// What a request shows of the browser that sent it, for refusing what
/// another site's page makes a browser send (cross-site request forgery)
/// and for keeping browsers out of what a trusted network alone admits.
///
/// The app (URLSession), curl and the seed app send none of these headers;
/// browsers send `Sec-Fetch-Site` with every request (Chrome 76, Firefox 90,
/// Safari 16.4) and `Origin` with every POST, `Origin: null` from sandboxed
/// frames and `data:` pages. The rule is Go's `net/http`
/// CrossOriginProtection (Fetch Metadata first, then `Origin` against the
/// request's own host) with two more refusals: `Origin: null`, and, where a
/// browser sent no `Origin`, a `Referer` from another host.
enum CrossSite {
    /// Methods that change something; GET and HEAD never do here.
    static func changesState(_ method: String) -> Bool {
        method != "GET" && method != "HEAD"
    }

    /// Whether a browser sent the request for another site's page (or for a
    /// page with no origin at all). `forwardedHost` is the host a trusted
    /// proxy says the browser asked for (HA's ingress: `X-Forwarded-Host`),
    /// nil for anyone else.
    ///
    /// A read (GET) is another site's only where Fetch Metadata says so and
    /// it is not the user following a link to a page (a top-level
    /// navigation to a document): another site may link to the status page,
    /// but not load the agent's routes as its images, scripts, frames or
    /// fetches, whose refusals would otherwise count as failed logins
    /// against the user's own address (Fetch Metadata's resource isolation
    /// policy; a browser without it is not refused here).
    static func isCrossSite(_ request: HTTPRequest, forwardedHost: String? = nil) -> Bool {
        guard changesState(request.method) else {
            guard let site = request.headers["sec-fetch-site"], site != "same-origin", site != "none" else { return false }
            let followsALink = request.headers["sec-fetch-mode"] == "navigate" && (request.headers["sec-fetch-dest"] ?? "document") == "document"
            return !followsALink
        }
        if let site = request.headers["sec-fetch-site"] {
            // "none": the user's own navigation (a bookmark, the address bar).
            return site != "same-origin" && site != "none"
        }
        let hosts = [request.headers["host"], forwardedHost].compactMap { $0?.lowercased() }
        if let origin = request.headers["origin"] {
            guard let host = authority(origin) else { return true }  // "null", or not a URL
            return !hosts.contains(host)
        }
        if let referer = request.headers["referer"] {
            guard let host = authority(referer) else { return true }
            return !hosts.contains(host)
        }
        return false
    }

    /// Whether a browser sent it at all (any Fetch Metadata or `Origin`):
    /// such a request is never admitted by its network alone, so a page the
    /// user opened (DNS rebinding included) cannot use what a trusted
    /// network may.
    static func isFromBrowser(_ request: HTTPRequest) -> Bool {
        request.headers["origin"] != nil || request.headers["sec-fetch-site"] != nil
            || request.headers["sec-fetch-mode"] != nil || request.headers["sec-fetch-dest"] != nil
    }

    /// `host[:port]` of an absolute http(s) URL, lower-cased; nil for
    /// anything else ("null" included).
    static func authority(_ url: String) -> String? {
        let lowered = url.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            rest = lowered.dropFirst(8)
        } else if lowered.hasPrefix("http://") {
            rest = lowered.dropFirst(7)
        } else {
            return nil
        }
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !host.isEmpty, !host.contains("@") else { return nil }
        return String(host)
    }

    /// Whether a request body is declared JSON (`application/json`, any
    /// parameters): what a page cannot send to another site without the
    /// browser asking first (CORS preflight), which the agent never allows.
    static func declaresJSON(_ request: HTTPRequest) -> Bool {
        guard let type = request.headers["content-type"] else { return false }
        let media = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingWhitespace.lowercased() } ?? ""
        return media == "application/json"
    }
}
