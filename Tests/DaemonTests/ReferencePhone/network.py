#!/usr/bin/env python3
"""The reference phone's network, between the phone and the agent.

--mode relay: the home network's path to the agent: a plain TCP relay
  listening on --listen (an address of this machine that is not loopback),
  connecting to the agent at --target from --source (so the agent sees a
  LAN client and speaks TLS, which passes through untouched). The test
  kills it when the phone "leaves home": the home URL then refuses.
--mode proxy: a reverse proxy from outside with a certificate of its own:
  TLS with a certificate for --name issued by a CA made here (written to
  --ca-out: the phone's trust store, as a public CA is an iPhone's), and
  behind it a TLS connection to the agent at --target (its own
  certificate is the proxy's business, as with a reverse proxy in front
  of the agent); bytes pass both ways. --self-signed: the certificate is
  self-signed instead (a proxy the phone must refuse).

--port N listens on that port (a machine taking over an address the
phone knows); --log FILE appends, per connection, the bytes the client
sent after the handshake ("0": it went no further).

Prints "PORT <n>" once listening.
"""
import argparse
import datetime
import socket
import ssl
import tempfile
import threading

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def certificate(name, ca_out, self_signed):
    """(certificate PEM path, key PEM path) for `name`, issued by a new CA (its PEM at ca_out)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Reference phone's trusted CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    leaf = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject if self_signed else ca_name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key if self_signed else ca_key, hashes.SHA256()))
    if ca_out:
        with open(ca_out, "wb") as f:
            f.write(ca.public_bytes(serialization.Encoding.PEM))
    directory = tempfile.mkdtemp(prefix="reference-phone-proxy-")
    with open(directory + "/cert.pem", "wb") as f:
        f.write(leaf.public_bytes(serialization.Encoding.PEM))
    with open(directory + "/key.pem", "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return directory + "/cert.pem", directory + "/key.pem"


def pump(source, destination, counted=None):
    try:
        while chunk := source.recv(65536):
            if counted is not None:
                counted[0] += len(chunk)
            destination.sendall(chunk)
    except OSError:
        pass
    finally:
        for side in (source, destination):
            try:
                side.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["relay", "proxy"], required=True)
    parser.add_argument("--listen", default="127.0.0.1")
    parser.add_argument("--target", required=True, help="HOST:PORT of the agent")
    parser.add_argument("--source", help="the address the relay connects to the agent from")
    parser.add_argument("--name", default="printbridge.example.test")
    parser.add_argument("--ca-out")
    parser.add_argument("--self-signed", action="store_true")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log")
    args = parser.parse_args()
    host, port = args.target.rsplit(":", 1)
    server_context = None
    if args.mode == "proxy":
        server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_context.load_cert_chain(*certificate(args.name, args.ca_out, args.self_signed))
    upstream_context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    upstream_context.check_hostname = False
    upstream_context.verify_mode = ssl.CERT_NONE
    listener = socket.create_server((args.listen, args.port))
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    while True:
        client, _ = listener.accept()

        def serve(client=client):
            try:
                if server_context:
                    client = server_context.wrap_socket(client, server_side=True)
                upstream = socket.create_connection((host, int(port)), source_address=(args.source, 0) if args.source else None)
                if args.mode == "proxy":
                    upstream = upstream_context.wrap_socket(upstream, server_hostname=host)
            except OSError:
                client.close()
                return
            counted = [0]
            sending = threading.Thread(target=pump, args=(client, upstream, counted), daemon=True)
            sending.start()
            pump(upstream, client)
            sending.join(5)
            if args.log:
                with open(args.log, "a") as log:
                    log.write(f"{counted[0]}\n")

        threading.Thread(target=serve, daemon=True).start()


if __name__ == "__main__":
    main()
