import AgentSettings
import Testing

/// API_HOME_URL and API_OUTSIDE_URL, the addresses pairing gives phones:
/// read from any source, written back as the app is given them, and every
/// text the app could not use refused with its reason (issue 49).
@Suite struct PhoneURLTests {
    static func settings(_ environment: [String: String], file: String? = nil) throws -> Settings {
        try SettingsTests.settings(environment: environment, file: file)
    }

    @Test func bothAddressesAreReadAndNormalised() throws {
        let settings = try Self.settings(
            ["API_HOME_URL": "HTTPS://192.168.1.20:3000/"], file: "api_outside_url: https://PrintBridge.Example.com\n")
        #expect(settings.problems.isEmpty, "\(settings.problems)")
        #expect(settings.api.homeURL?.description == "https://192.168.1.20:3000")
        #expect(settings.api.homeURL?.hostKind == .ipv4 && settings.api.homeURL?.port == 3000)
        #expect(settings.api.outsideURL?.description == "https://printbridge.example.com")
        #expect(settings.api.outsideURL?.host == "printbridge.example.com" && settings.api.outsideURL?.port == nil)
        #expect(settings.values["API_OUTSIDE_URL"]?.source == .file)
        // Neither is set by default: pairing works the home address out from API_LISTEN.
        let none = try Self.settings([:])
        #expect(none.api.homeURL == nil && none.api.outsideURL == nil && none.problems.isEmpty)
    }

    @Test(arguments: [
        ("https://[FD00::20]:3443", "https://[fd00::20]:3443", PhoneURL.HostKind.ipv6),
        ("https://homeassistant.local:3000", "https://homeassistant.local:3000", .name),
        ("https://pb-1.example.com.", "https://pb-1.example.com.", .name),
        ("http://10.0.0.5:8080", "http://10.0.0.5:8080", .ipv4),
    ])
    func goodAddresses(text: String, written: String, kind: PhoneURL.HostKind) throws {
        // Plain HTTP is allowed only while the API speaks it (here: behind a proxy, API_TLS=off).
        let settings = try Self.settings(["API_HOME_URL": text, "API_TLS": "off"])
        #expect(settings.problems.isEmpty, "\(settings.problems)")
        #expect(settings.api.homeURL?.description == written && settings.api.homeURL?.hostKind == kind)
    }

    @Test(arguments: [
        ("192.168.1.20:3000", "API_HOME_URL must be a URL with a scheme and a host, e.g. https://192.168.1.20:3000, not 192.168.1.20:3000"),
        ("ftp://host", "API_HOME_URL must start with https:// (or http://), not ftp://"),
        ("https://", "API_HOME_URL has no host, e.g. https://192.168.1.20:3000"),
        ("https://:3000", "API_HOME_URL has no host"),
        ("https://printbridge.example.com/printbridge", "API_HOME_URL takes no path, query or fragment (/printbridge): the app adds /api/… itself"),
        ("https://host:3000/?x=1", "API_HOME_URL takes no path, query or fragment (/?x=1)"),
        ("https://host#top", "API_HOME_URL takes no path, query or fragment (#top)"),
        ("https://admin:secret@host:3000", "API_HOME_URL takes no user name or password"),
        ("https://host:0", "API_HOME_URL has a port that is not 1-65535: 0"),
        ("https://host:70000", "API_HOME_URL has a port that is not 1-65535: 70000"),
        ("https://host:", "API_HOME_URL has a port that is not 1-65535: "),
        ("https://fd00::20:3000", "API_HOME_URL has an IPv6 address without brackets: write https://[fd00::20]:3000"),
        ("https://[fd00::zz]:3000", "API_HOME_URL has [fd00::zz] as its host, which is not an IPv6 address"),
        ("https://192.168.1.300:3000", "API_HOME_URL has 192.168.1.300 as its host, which is not an IPv4 address"),
        ("https://under_score.local", "API_HOME_URL has under_score.local as its host, which is neither a host name nor an IP address"),
        ("https://0.0.0.0:3000", "API_HOME_URL has 0.0.0.0 as its host, a wildcard address no phone can reach"),
        ("https://[::]:3000", "API_HOME_URL has :: as its host, a wildcard address no phone can reach"),
        ("http://192.168.1.20:3000",
         "API_HOME_URL is http:// but the API speaks HTTPS (API_TLS=auto, listening beyond loopback): write https://192.168.1.20:3000"),
    ])
    func badAddressesAreRefusedWithTheirReason(text: String, message: String) throws {
        let settings = try Self.settings(["API_HOME_URL": text])
        #expect(settings.api.homeURL == nil)
        #expect(settings.problems.count == 1, "\(settings.problems)")
        let problem = try #require(settings.problems.first)
        #expect(problem.section == .api && problem.setting == "API_HOME_URL")
        #expect(problem.message.hasPrefix(message), "\(problem.message)")
    }

    /// The outside address follows the same rules, reported under its own name.
    @Test func theOutsideAddressIsCheckedToo() throws {
        let settings = try Self.settings(["API_OUTSIDE_URL": "http://printbridge.example.com"])
        #expect(settings.problems.map(\.setting) == ["API_OUTSIDE_URL"])
        #expect(settings.problems.first?.message.hasPrefix("API_OUTSIDE_URL is http:// but the API speaks HTTPS") == true)
        // A proxy in front that terminates TLS: https:// while the agent speaks plain HTTP is fine.
        let proxied = try Self.settings(["API_OUTSIDE_URL": "https://printbridge.example.com", "API_TLS": "off"])
        #expect(proxied.problems.isEmpty && proxied.api.outsideURL?.secure == true)
        // On loopback the API speaks plain HTTP: an http:// address is what it serves.
        let loopback = try Self.settings(["API_HOME_URL": "http://127.0.0.1:3000", "API_LISTEN": "127.0.0.1:3000"])
        #expect(loopback.problems.isEmpty && loopback.api.homeURL?.isLoopback == true)
    }
}
