#!/usr/bin/env python3
"""Measures `rewind serve`'s memory under issue 13's repro 7: inspectors that ask for a large
state again and again and never read.

Starts `rewind serve` (its own process) on a free port with a temporary log, has an app store
a state of STATE_MIB MiB, then opens INSPECTORS raw WebSocket connections with a tiny receive
buffer that each send REQUESTS `state` requests and read nothing. Prints the server's peak RSS
while they hang on (20 s) and its RSS 3 s after they are closed.

Usage: measure_output_memory.py PATH_TO_REWIND [INSPECTORS=40] [REQUESTS=60] [STATE_MIB=1] [extra serve options…]
"""
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def frame(text):
    payload = text.encode()
    header = bytearray([0x81])
    n = len(payload)
    if n < 126:
        header.append(0x80 | n)
    elif n < 65536:
        header += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        header += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    mask = b"\x12\x34\x56\x78"
    return bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def connect(port, path, protocol, rcvbuf=None):
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {protocol}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            raise SystemExit("upgrade refused")
        head += chunk
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise SystemExit("upgrade refused: " + head.split(b"\r\n")[0].decode())
    return s


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    binary = sys.argv[1]
    inspectors = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    state_mib = float(sys.argv[4]) if len(sys.argv) > 4 else 1
    extra = sys.argv[5:]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="rewind-rss-")
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--db", os.path.join(folder, "r.db")] + extra,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise SystemExit("rewind serve did not start")
                time.sleep(0.05)
        app = connect(port, "/app", "rewind.app.v1")
        app.sendall(frame(json.dumps({"type": "hello", "id": 1, "session": "rss-app", "app": "RSS", "version": "1"})))
        blob = "b" * int(state_mib * (1 << 20))
        state_text = json.dumps({"blob": blob}, separators=(",", ":"))
        digest = "%016x" % fnv1a64(state_text.encode())
        app.sendall(frame('{"type":"event","seq":0,"at":1763700000,"action":{"type":"@@INIT"},"keyframe":%s,"hash":"%s"}' % (state_text, digest)))
        received = b""
        while b'"ack"' not in received:
            chunk = app.recv(65536)
            if not chunk:
                raise SystemExit("the app was disconnected")
            received += chunk
        baseline = rss_kib(server.pid)
        sockets = [connect(port, "/inspect", "rewind.inspect.v1", rcvbuf=4096) for _ in range(inspectors)]
        request = frame('{"type":"state","id":1,"session":"rss-app","seq":0}')
        for s in sockets:
            s.setblocking(False)
            for _ in range(requests):
                try:
                    s.sendall(request)
                except (BlockingIOError, OSError):
                    break
        peak = baseline
        end = time.time() + 20
        while time.time() < end:
            peak = max(peak, rss_kib(server.pid))
            time.sleep(0.05)
        for s in sockets:
            s.close()
        time.sleep(3)
        after = rss_kib(server.pid)
        print(json.dumps({"inspectors": inspectors, "requests": requests, "state_mib": state_mib,
                          "rss_before_mib": round(baseline / 1024, 1), "rss_peak_mib": round(peak / 1024, 1),
                          "rss_after_close_mib": round(after / 1024, 1)}))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
