extension Settings.API {
    /// API_HOME_URL or API_OUTSIDE_URL, or nil with a problem: a URL the app
    /// can use (`PhoneURL`), and https:// while the API speaks HTTPS (a phone
    /// speaking plain HTTP to it would get a 400). https:// while the API
    /// speaks plain HTTP is a proxy in front of it that terminates TLS.
    static func phoneURL(_ name: String, _ reader: inout SettingReader, servesTLS: Bool) -> PhoneURL? {
        guard let text = reader.text(name) else { return nil }
        let url: PhoneURL
        do throws(PhoneURL.Problem) { url = try PhoneURL(parsing: text) } catch {
            reader.problem(.api, name, "\(name) \(error)")
            return nil
        }
        if servesTLS, !url.secure {
            reader.problem(
                .api, name,
                "\(name) is http:// but the API speaks HTTPS (API_TLS=auto, listening beyond loopback): "
                    + "write https://\(url.description.dropFirst("http://".count))")
            return nil
        }
        return url
    }
}
