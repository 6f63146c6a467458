import COpenSSL
import ControlAPI
import Foundation
import Testing
import TestSupport

/// The API server over TLS, with a client it does not control (Python's ssl).
@Suite struct HTTPServerTLSTests {
    /// HTTPS only, with a new certificate of the agent's own kind (its files
    /// are read at once, then removed).
    static func policy() throws -> HTTPServer.TLSPolicy {
        let directory = NSTemporaryDirectory() + "printbridge-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try APICertificate.make(certificate: directory + "/cert.pem", key: directory + "/key.pem", hostNames: [])
        let certificate = try APICertificate.load(certificate: directory + "/cert.pem", key: directory + "/key.pem")
        return HTTPServer.TLSPolicy(context: try TLSServerContext(certificate), httpsHint: "https://127.0.0.1") { _ in false }
    }

    /// An OpenSSL call that fails on the server thread (here a route's; in
    /// the wild also a write to a phone that had gone) leaves an error on
    /// that thread's queue, and SSL_get_error reads the queue first: the
    /// next TLS read that only had to wait for more of a request was taken
    /// for a broken connection, and another phone's request was dropped
    /// halfway. (OpenSSL's handshake clears the queue as it starts; reads and
    /// writes do not.) The second client is connected before the first one's
    /// route runs, and sends its request in two pieces after it.
    @Test func anErrorLeftOnTheServerThreadDoesNotBreakAnotherClientsRequest() throws {
        let policy = try Self.policy()
        let server = try HTTPServer(host: "127.0.0.1", port: 0, tls: policy) { request in
            if request.path == "/leave-an-error" {
                // Reading a certificate from bytes that are none: NULL, and
                // PEM_R_NO_START_LINE on this thread's queue.
                let bio = BIO_new_mem_buf("not a certificate", -1)
                let x509 = PEM_read_bio_X509(bio, nil, nil, nil)
                BIO_free(bio)
                precondition(x509 == nil && ERR_peek_error() != 0, "the route left no error")
            }
            return HTTPResponse(status: 200, body: #"{"path":"\#(request.path)"}"#)
        }
        try server.start()
        defer { server.stop() }
        let script = """
            import socket, ssl, sys, time
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            def connect():
                return context.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))), server_hostname="x")
            def answer(tls):
                got = b""
                while b"}" not in got:
                    chunk = tls.recv(4096)
                    if not chunk:
                        break
                    got += chunk
                return got.split(b"\\r\\n")[0].decode() or "(no answer)"
            second = connect()
            first = connect()
            first.sendall(b"GET /leave-an-error HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            print("first", answer(first))
            try:
                # Two pieces, so the server reads the first and then has to
                # wait for more (the pause only keeps them apart on loopback).
                second.sendall(b"GET /after HTTP/1.1\\r\\n")
                time.sleep(0.2)
                second.sendall(b"Host: x\\r\\n\\r\\n")
                print("second", answer(second))
            except (ssl.SSLError, OSError) as error:
                print("second failed:", error)
            first.close()
            """
        let run = try CommandRunner.execute("/usr/bin/env", ["python3", "-c", script, String(server.port)], directory: "/")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("first HTTP/1.1 200"), "\(run.stdout)")
        #expect(run.stdout.contains("second HTTP/1.1 200"), "\(run.stdout)")
    }

    /// Issue 48: no session is resumed, by TLS 1.2 session id or ticket or
    /// by a TLS 1.3 ticket: every connection is a full handshake (a client
    /// offering its saved session gets a new one).
    @Test func noTLSSessionIsResumed() throws {
        let policy = try Self.policy()
        let server = try HTTPServer(host: "127.0.0.1", port: 0, tls: policy) { _ in HTTPResponse(status: 200, body: "{}") }
        try server.start()
        defer { server.stop() }
        let script = """
            import socket, ssl, sys
            for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
                context = ssl.create_default_context()
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                context.minimum_version = context.maximum_version = version
                session = None
                for attempt in range(2):
                    raw = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                    with context.wrap_socket(raw, server_hostname="x", session=session) as tls:
                        tls.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                        answer = b""
                        while chunk := tls.recv(4096):
                            answer += chunk
                        print(tls.version(), attempt, "offered" if session else "fresh",
                              "reused" if tls.session_reused else "full", answer.split(b"\\r\\n")[0].decode())
                        session = tls.session
            """
        let run = try CommandRunner.execute("/usr/bin/env", ["python3", "-c", script, String(server.port)], directory: "/")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines == [
            "TLSv1.2 0 fresh full HTTP/1.1 200 OK", "TLSv1.2 1 offered full HTTP/1.1 200 OK",
            "TLSv1.3 0 fresh full HTTP/1.1 200 OK", "TLSv1.3 1 offered full HTTP/1.1 200 OK",
        ], "\(run.stdout)")
    }
}
