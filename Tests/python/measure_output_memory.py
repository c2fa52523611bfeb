#!/usr/bin/env python3
"""Measures `rewind serve`'s memory under issue 13's repro 7: inspectors that ask for a large
state again and again and never read.

Starts `rewind serve` (its own process) on a free port with a temporary log, has an app store
a state of STATE_MIB MiB, then opens INSPECTORS raw WebSocket connections with a tiny receive
buffer that each send REQUESTS `state` requests and read nothing. Prints the server's peak RSS
while they hang on (20 s) and its RSS 3 s after they are closed.

Usage: measure_output_memory.py PATH_TO_REWIND [INSPECTORS=40] [REQUESTS=60] [STATE_MIB=1] [extra serve options…]
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

from rewind_wire import connect, fnv1a64, frame, free_port, status_kib


def main():
    binary = sys.argv[1]
    inspectors = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    requests = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    state_mib = float(sys.argv[4]) if len(sys.argv) > 4 else 1
    extra = sys.argv[5:]
    port = free_port()
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
        baseline = status_kib(server.pid)
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
            peak = max(peak, status_kib(server.pid))
            time.sleep(0.05)
        for s in sockets:
            s.close()
        time.sleep(3)
        after = status_kib(server.pid)
        print(json.dumps({"inspectors": inspectors, "requests": requests, "state_mib": state_mib,
                          "rss_before_mib": round(baseline / 1024, 1), "rss_peak_mib": round(peak / 1024, 1),
                          "rss_after_close_mib": round(after / 1024, 1)}))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
