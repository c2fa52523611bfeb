#!/usr/bin/env python3
"""Measures `rewind serve` under issue 38's item 5: connections that send nothing (or half a TLS
ClientHello) from one address.

Starts `rewind serve` (its own process, with a soft descriptor limit of 1,024 and the hard limit
of this shell, as many systems start services) with a temporary log, plain or with a self-signed
certificate, opens COUNT connections from 127.0.0.1 that send nothing (plain) or half a
ClientHello (TLS), and prints: the server's soft limit after start, how many of them it closed at
once, how long a request from 127.0.0.2 took to be answered, and its RSS before and after.

Usage: measure_silent_connections.py PATH_TO_REWIND [plain|tls] [COUNT=1100]
"""
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import time


def main():
    binary = sys.argv[1]
    tls = len(sys.argv) > 2 and sys.argv[2] == "tls"
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1100
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    folder = tempfile.mkdtemp(prefix="rewind-silent-")
    serve = [binary, "serve", "--port", "0", "--db", os.path.join(folder, "served.db")]
    if tls:
        key, cert = os.path.join(folder, "key.pem"), os.path.join(folder, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "2", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True)
        serve += ["--tls-cert", cert, "--tls-key", key]
    proc = subprocess.Popen(["prlimit", f"--nofile=1024:{hard}"] + serve, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    port = None
    for line in proc.stdout:
        found = re.search(r"wss?://127\.0\.0\.1:(\d+)/app", line)
        if found:
            port = int(found.group(1))
            break

    def rss_mib():
        with open(f"/proc/{proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024

    with open(f"/proc/{proc.pid}/limits") as limits:
        soft = next(line for line in limits if line.startswith("Max open files")).split()[3]
    before = rss_mib()
    half_hello = bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]) + os.urandom(94)
    silent = []
    for _ in range(count):
        try:
            connection = socket.create_connection(("127.0.0.1", port), timeout=2)
            if tls:
                connection.sendall(half_hello)
            silent.append(connection)
        except OSError:
            pass
    time.sleep(1)
    closed = 0
    for connection in silent:
        connection.setblocking(False)
        try:
            if connection.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    began = time.time()
    other = socket.socket()
    other.bind(("127.0.0.2", 0))
    other.settimeout(10)
    answered = "no answer"
    try:
        other.connect(("127.0.0.1", port))
        if tls:
            import ssl
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            other = context.wrap_socket(other)
        other.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answered = other.recv(64).split(b"\r\n")[0].decode()
    except OSError as error:
        answered = f"failed: {error}"
    took = (time.time() - began) * 1000
    print(f"soft descriptor limit after start: {soft} (started with 1024, hard {hard})")
    print(f"{count} {'half-ClientHello' if tls else 'silent'} connections from 127.0.0.1: {closed} closed at once, "
          f"{len(silent) - closed} left to time out")
    print(f"a request from 127.0.0.2: {answered!r} in {took:.1f} ms")
    print(f"server RSS: {before:.0f} MiB before, {rss_mib():.0f} MiB after")
    proc.kill()


if __name__ == "__main__":
    main()
