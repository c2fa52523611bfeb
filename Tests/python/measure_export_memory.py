#!/usr/bin/env python3
"""Measures `rewind serve` during large exports (issue 25, item 2): its peak RSS with a fast
reader and with readers that never read, how soon an export stops once its client leaves, and
app ingest (events/s, ack delays) with and without an export running beside it.

Starts `rewind serve` (its own process) on a free port with a temporary log and has an app store
a session whose state is a STATE_MIB MiB string plus a number, followed by EVENTS events that
each change the number (the issue's repro: a 1 MB state, one-number patches). Its JSONL export
is about EVENTS x STATE_MIB MiB. Then, one after the other:

- fast: `curl -o /dev/null` downloads the JSONL export (and the Redux DevTools one);
- stalled: one client sends GET and never reads, for HOLD seconds; then three at once (the third
  is over the bound of two); then they hang up and the script waits for the export threads to end;
- hung up: `curl --limit-rate 50M --max-time 2` (the issue's "hung up after 2 s"), then the
  time until the export threads are gone;
- HEAD: the time to answer and the RSS it adds;
- ingest (with --bench): `rewind-bench --role app` sends APP_EVENTS ~1 KB events as fast as acks
  allow, and then at 5,000/s, each alone and again while curl downloads the export in a loop.

The server's RSS is sampled every 10 ms from /proc/PID/status; its export threads are the ones
named rewind-ws-body in /proc/PID/task/*/comm. Prints one JSON object per measurement.

Usage: measure_export_memory.py PATH_TO_REWIND [--events 2000] [--state-mib 1] [--hold 10]
                                 [--bench PATH_TO_REWIND_BENCH] [--app-events 100000] [--beside-rate 100M]
                                 [--skip fast,stalled,hungup,head,ingest]
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from rewind_wire import connect, fnv1a64, frame, free_port, status_kib


def export_threads(pid):
    count = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                if f.read().strip() == "rewind-ws-body":
                    count += 1
        except OSError:
            pass
    return count


class Sampler:
    """Samples the server's RSS every 10 ms while running; `peak` is the highest seen."""

    def __init__(self, pid):
        self.pid = pid
        self.peak = status_kib(pid, "VmRSS")
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            self.peak = max(self.peak, status_kib(self.pid, "VmRSS"))
            time.sleep(0.01)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak


def mib(kib):
    return round(kib / 1024, 1)


def canonical(number):
    """An integer as the stable hash writes it: no trailing zeros, an exponent instead (1500: 15e2)."""
    exponent = 0
    while number and number % 10 == 0:
        number //= 10
        exponent += 1
    return str(number) + ("e%d" % exponent if exponent else "")


def store_session(port, uuid, state_mib, events):
    """The app's session: seq 0 a state of STATE_MIB MiB, then one-number patches."""
    app = connect(port, "/app", "rewind.app.v1")
    app.sendall(frame(json.dumps({"type": "hello", "id": 1, "session": uuid, "app": "ExportBench", "version": "1"})))
    blob = "b" * int(state_mib * (1 << 20))
    prefix = ('{"blob":"%s","n":' % blob).encode()
    prefix_hash = fnv1a64(prefix)
    acked = [-1]
    done = threading.Event()

    def read_acks():
        buffer = b""
        while acked[0] < events:
            chunk = app.recv(65536)
            if not chunk:
                break
            buffer += chunk
            # Server frames are unmasked text frames of small JSON objects.
            while len(buffer) >= 2:
                n = buffer[1] & 0x7f
                start = 2
                if n == 126:
                    if len(buffer) < 4:
                        break
                    n = int.from_bytes(buffer[2:4], "big")
                    start = 4
                elif n == 127:
                    if len(buffer) < 10:
                        break
                    n = int.from_bytes(buffer[2:10], "big")
                    start = 10
                if len(buffer) < start + n:
                    break
                message = json.loads(buffer[start:start + n])
                buffer = buffer[start + n:]
                if message.get("type") == "ack":
                    acked[0] = max(acked[0], message["seq"])
                elif message.get("type") == "error":
                    raise SystemExit("the server refused an event: %s" % message)
        done.set()

    reader = threading.Thread(target=read_acks, daemon=True)
    reader.start()
    state0 = '{"blob":"%s","n":0}' % blob
    app.sendall(frame('{"type":"event","seq":0,"at":1763700000,"action":{"type":"@@INIT"},"keyframe":%s,"hash":"%016x"}'
                      % (state0, fnv1a64(b"0}", prefix_hash))))
    for seq in range(1, events + 1):
        digest = fnv1a64(canonical(seq).encode() + b"}", prefix_hash)
        app.sendall(frame('{"type":"event","seq":%d,"at":%.3f,"action":{"type":"bump","n":%d},"patch":[{"op":"replace","path":"/n","value":%d}],"hash":"%016x"}'
                          % (seq, 1763700000 + seq / 1000, seq, seq, digest)))
    if not done.wait(300) or acked[0] < events:
        raise SystemExit("the session was not acked (last ack %d of %d)" % (acked[0], events))
    app.close()


def curl(url, *extra):
    started = time.time()
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"] + list(extra) + [url],
                         capture_output=True, text=True)
    code, size = out.stdout.split()
    return int(code), int(size), time.time() - started


def wait_for(predicate, timeout):
    started = time.time()
    while not predicate():
        if time.time() - started > timeout:
            return None
        time.sleep(0.005)
    return time.time() - started


def stalled_client(port, path):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return s


def read_status(s, timeout=10):
    s.settimeout(timeout)
    try:
        head = s.recv(4096)
    except socket.timeout:
        return None
    return int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else None


def run_app(bench, port, count, rate):
    out = subprocess.run([bench, "--role", "app", str(port), str(count), str(rate)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit("rewind-bench app failed: " + out.stderr)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return {"events_per_s": round(result["events"] / result["seconds"]), "ack_p50_ms": round(result["ackP50ms"], 2),
            "ack_p99_ms": round(result["ackP99ms"], 2), "ack_max_ms": round(result["ackMaxMs"], 2)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rewind")
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--state-mib", type=float, default=1)
    parser.add_argument("--hold", type=float, default=10)
    parser.add_argument("--bench")
    parser.add_argument("--app-events", type=int, default=100000)
    parser.add_argument("--beside-rate", help="curl --limit-rate for the export beside the app (default: as fast as it reads)")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: fast,stalled,hungup,head,ingest")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    if shutil.which("curl") is None:
        raise SystemExit("needs curl")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="rewind-export-")
    server = subprocess.Popen([args.rewind, "serve", "--port", str(port), "--db", os.path.join(folder, "r.db"), "--web", folder],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid = server.pid

    def say(**figures):
        print(json.dumps(figures), flush=True)

    try:
        if wait_for(lambda: subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{port}/"]).returncode == 0, 30) is None:
            raise SystemExit("rewind serve did not start")
        started = time.time()
        store_session(port, "export-bench", args.state_mib, args.events)
        say(part="session", events=args.events, state_mib=args.state_mib, seconds=round(time.time() - started, 1),
            rss_mib=mib(status_kib(pid, "VmRSS")))
        url = f"http://127.0.0.1:{port}/export/export-bench"

        if "fast" not in skip:
            for fmt in ["jsonl", "redux-devtools"]:
                before = status_kib(pid, "VmRSS")
                sampler = Sampler(pid)
                code, size, seconds = curl(url + "?format=" + fmt)
                peak = sampler.stop()
                say(part="fast", format=fmt, status=code, bytes=size, seconds=round(seconds, 1),
                    mb_per_s=round(size / seconds / 1e6), rss_before_mib=mib(before), rss_peak_mib=mib(peak),
                    rss_after_mib=mib(status_kib(pid, "VmRSS")))

        if "stalled" not in skip:
            for count in [1, 3]:
                before = status_kib(pid, "VmRSS")
                sampler = Sampler(pid)
                clients = [stalled_client(port, "/export/export-bench") for _ in range(count)]
                time.sleep(args.hold)
                peak = sampler.stop()
                threads = export_threads(pid)
                # The statuses: each client's first bytes (a stalled one still got its head).
                statuses = [read_status(c) for c in clients]
                for c in clients:
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    c.close()
                gone = wait_for(lambda: export_threads(pid) == 0, 30)
                say(part="stalled", clients=count, hold_s=args.hold, statuses=statuses, export_threads_while_held=threads,
                    rss_before_mib=mib(before), rss_peak_mib=mib(peak), rss_after_mib=mib(status_kib(pid, "VmRSS")),
                    export_threads_gone_after_s=None if gone is None else round(gone, 3))

        if "hungup" not in skip:
            sampler = Sampler(pid)
            # A reader at 50 MB/s that gives up after 2 s, as in the issue.
            code, size, seconds = curl(url, "--limit-rate", "50M", "--max-time", "2")
            gone = wait_for(lambda: export_threads(pid) == 0, 30)
            say(part="hung-up", curl_seconds=round(seconds, 2), bytes=size, rss_peak_mib=mib(sampler.stop()),
                export_threads_gone_after_s=None if gone is None else round(gone, 3))

        if "head" not in skip:
            before = status_kib(pid, "VmRSS")
            sampler = Sampler(pid)
            started = time.time()
            head = subprocess.run(["curl", "-s", "-I", url], capture_output=True, text=True).stdout
            say(part="head", status=int(head.split()[1]), seconds=round(time.time() - started, 3), rss_before_mib=mib(before),
                rss_peak_mib=mib(sampler.stop()), export_threads=export_threads(pid))

        if args.bench and "ingest" not in skip:
            for rate, count in [(0, args.app_events), (5000, 15000)]:
                alone = run_app(args.bench, port, count, rate)
                stop = threading.Event()
                lock = threading.Lock()
                current = [None]

                def download_loop():
                    while True:
                        with lock:
                            if stop.is_set():
                                return
                            limit = ["--limit-rate", args.beside_rate] if args.beside_rate else []
                            current[0] = subprocess.Popen(["curl", "-s", "-o", "/dev/null"] + limit + [url])
                        current[0].wait()

                loop = threading.Thread(target=download_loop, daemon=True)
                loop.start()
                wait_for(lambda: export_threads(pid) > 0, 10)  # the export is streaming when the app starts
                busy = export_threads(pid)
                beside = run_app(args.bench, port, count, rate)
                with lock:
                    stop.set()
                    if current[0] is not None and current[0].poll() is None:
                        current[0].kill()  # the download this script started, by its process
                loop.join()
                say(part="ingest", rate=rate or "bulk", events=count, export_read_rate=args.beside_rate or "full speed",
                    alone=alone, beside_an_export=beside, export_threads=busy)
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
