import AgentSettings
import ArgumentParser
import ControlAPI
import PrintBridgeCore

/// `printbridge certificate`: the API's TLS certificate — show its
/// fingerprint (what phones pin), or make a new one.
struct CertificateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certificate",
        abstract: "Show or renew the API's TLS certificate (what paired phones pin).",
        subcommands: [Show.self, Rotate.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print the certificate's file, SHA-256 fingerprint, public-key pin and expiry (made if missing).")

        @OptionGroup var configOption: ConfigOption

        func run() throws {
            let settings = try configOption.settings()
            try settings.check([.api, .state])
            guard let certificate = try APITLSSetup.certificate(settings, logger: nil) else {
                throw CommandFailure.config(
                    "the API speaks plain HTTP (API_TLS=off, or API_LISTEN on loopback): it has no certificate")
            }
            CertificateCommand.describe(certificate)
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Make a new key and certificate for the API; paired phones must pair again.",
            discussion: """
                Replaces api-key.pem and api-cert.pem in the state directory; the new certificate names \
                this machine's host name and LAN address and the hosts of API_HOME_URL and API_OUTSIDE_URL. \
                Restart the agent to serve \
                the new one; phones that pinned the old fingerprint refuse it until they pair again \
                (printbridge pair). Not for a certificate of your own (API_CERT_FILE): renew that where it comes from.
                """)

        @OptionGroup var configOption: ConfigOption

        func run() throws {
            let settings = try configOption.settings()
            try settings.check([.api, .state])
            guard settings.api.certificateFile == nil else {
                throw CommandFailure.config("API_CERT_FILE is set: the API serves your certificate; renew it where it comes from")
            }
            let paths = APICertificate.ownPaths(in: StateDirectory.path(settings))
            do {
                try APICertificate.make(certificate: paths.certificate, key: paths.key, hostNames: APITLSSetup.ownNames(settings))
                let certificate = try APICertificate.load(certificate: paths.certificate, key: paths.key)
                CertificateCommand.describe(certificate)
                StandardStreams.out("Restart the agent to serve it; then pair each phone again (printbridge pair).")
            } catch {
                throw CommandFailure.cannotCreate("\(error)")
            }
        }
    }

    static func describe(_ certificate: APICertificate) {
        StandardStreams.out("Certificate:        \(certificate.certificatePath)")
        StandardStreams.out("SHA-256:            \(certificate.fingerprint)")
        StandardStreams.out("Public-key pin:     sha256//\(certificate.publicKeyPin)")
        StandardStreams.out("Valid until:        \(ISO8601.format(certificate.notAfter))")
    }
}
