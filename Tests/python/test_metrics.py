#!/usr/bin/env python3
"""`rewind serve --metrics` against a real app and inspector, its output read by Prometheus' own
text parser (prometheus_client.parser), not by string matching: the counts after six events and
a refused one, the gauges while connected and after, the histograms' shape; and the metrics
token: required beyond loopback, refused without it, accepted with it.

Usage: test_metrics.py PATH_TO_REWIND_BINARY. Prints `N passed, M failed`; exits 1 on a failure.
"""
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

import websockets
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_protocol import check, results, stable_hash  # noqa: E402


def start(binary, arguments, folder):
    """`rewind serve` with `arguments`; returns (process, port) once it listens, or (process, None)
    with what it printed when it exits first."""
    server = subprocess.Popen([binary, "serve", "--port", "0", "--db", os.path.join(folder, "rewind.db"), "--web", folder] + arguments,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in server.stdout:
        match = re.search(r"ws://[^:]+:(\d+)/app", line)
        if match:
            return server, int(match.group(1))
    return server, None


def stop(server):
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def scrape(port, token=None):
    """(status, families by name) of GET /metrics."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            kind = response.headers.get("Content-Type", "")
            return response.status, {f.name: f for f in text_string_to_metric_families(text)}, kind
    except urllib.error.HTTPError as error:
        return error.code, {}, ""


def value(families, name, **labels):
    """The sample `name` with `labels` (a family's name is without `_total`)."""
    for family in families.values():
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    return None


def wait_for(condition, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


async def stream(port):
    """An inspector and an app: six events, then one with a seq gap; returns while both are open,
    through the callback."""
    base = f"ws://127.0.0.1:{port}"
    session = str(uuid.uuid4())
    inspector = await websockets.connect(base + "/inspect", subprotocols=["rewind.inspect.v1"])
    app = await websockets.connect(base + "/app", subprotocols=["rewind.app.v1"])
    await app.send(json.dumps({"type": "hello", "id": 1, "session": session, "app": "metrics"}))
    state = {"n": 0}
    await app.send(json.dumps({"type": "event", "seq": 0, "at": 1763700000.0, "action": {"type": "@@INIT"},
                               "keyframe": state, "hash": stable_hash(state), "durationNs": 0}))
    for seq in range(1, 6):
        state = {"n": seq}
        await app.send(json.dumps({"type": "event", "seq": seq, "at": 1763700000.0 + seq, "action": {"type": "bump"},
                                   "patch": [{"op": "replace", "path": "/n", "value": seq}], "hash": stable_hash(state)}))
    while True:
        message = json.loads(await asyncio.wait_for(app.recv(), 10))
        if message.get("type") == "ack" and message.get("seq") == 5:
            break
    await app.send(json.dumps({"type": "event", "seq": 9, "at": 0, "action": {"type": "x"}, "patch": [], "hash": stable_hash(state)}))
    while json.loads(await asyncio.wait_for(app.recv(), 10)).get("type") != "error":
        pass
    return app, inspector


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "rewind"
    with tempfile.TemporaryDirectory() as folder:
        server, port = start(binary, ["--metrics"], folder)
        try:
            check("rewind serve --metrics started", port is not None)
            if port is not None:
                loop = asyncio.new_event_loop()
                app, inspector = loop.run_until_complete(stream(port))
                status, families, kind = scrape(port)
                check("GET /metrics answers 200 in the text format", status == 200 and kind.startswith("text/plain; version=0.0.4"), (status, kind))
                check("six events received and stored",
                      value(families, "rewind_events_received_total", store="sqlite") == 6
                      and value(families, "rewind_events_stored_total", store="sqlite") == 6,
                      (value(families, "rewind_events_received_total"), value(families, "rewind_events_stored_total")))
                check("the seq gap counted by its code", value(families, "rewind_errors_sent_total", code="seq-gap") == 1,
                      [s for s in families.get("rewind_errors_sent", type("", (), {"samples": []})).samples])
                check("one app, one inspector, one live session",
                      (value(families, "rewind_apps_connected"), value(families, "rewind_inspectors_connected"),
                       value(families, "rewind_sessions_live")) == (1, 1, 1))
                commit = families.get("rewind_commit_seconds")
                buckets = [s for s in commit.samples if s.name.endswith("_bucket")] if commit else []
                counts = [s.value for s in buckets]
                check("commit times: a histogram whose buckets only grow, ending in +Inf = count",
                      commit is not None and commit.type == "histogram" and counts == sorted(counts)
                      and buckets[-1].labels.get("le") == "+Inf" and counts[-1] == value(families, "rewind_commit_seconds_count") >= 1,
                      counts)
                check("the writer's windows hold the six events", value(families, "rewind_writer_window_events_sum") == 6)
                check("bytes in and out counted", (value(families, "rewind_received_bytes_total") or 0) > 500
                      and (value(families, "rewind_sent_bytes_total") or 0) > 100)
                check("no team-store metrics on a file", "rewind_feed_lag_seconds" not in families)
                loop.run_until_complete(app.close())
                loop.run_until_complete(inspector.close())
                check("closed: no app, no inspector, no live session", wait_for(
                    lambda: (lambda f: (value(f, "rewind_apps_connected"), value(f, "rewind_inspectors_connected"),
                                        value(f, "rewind_sessions_live")) == (0, 0, 0))(scrape(port)[1])))
                loop.close()
        finally:
            stop(server)

        # Without --metrics there is no /metrics (the page's files answer 404).
        server, port = start(binary, [], folder)
        try:
            check("without --metrics, no metrics", port is not None and scrape(port)[0] == 404)
        finally:
            stop(server)

        # Beyond loopback the metrics need a token of their own.
        refused = subprocess.run([binary, "serve", "--port", "0", "--db", os.path.join(folder, "other.db"), "--host", "0.0.0.0",
                                  "--metrics"], capture_output=True, text=True, timeout=30,
                                 env={**os.environ, "REWIND_TOKEN": "a-token-of-thirty-two-characters-x"})
        check("--metrics beyond loopback without a metrics token: exit 2 in one sentence",
              refused.returncode == 2 and "--metrics on a server that listens beyond this machine (0.0.0.0) needs --metrics-token-file" in refused.stderr,
              (refused.returncode, refused.stderr))
        token_file = os.path.join(folder, "metrics-token")
        with open(token_file, "w") as f:
            f.write("metrics-secret-0123456789abcdef\n")
        os.chmod(token_file, 0o600)
        alone = subprocess.run([binary, "serve", "--port", "0", "--db", os.path.join(folder, "other.db"), "--metrics-token-file", token_file],
                               capture_output=True, text=True, timeout=30)
        check("--metrics-token-file without --metrics: exit 2", alone.returncode == 2 and "give --metrics too" in alone.stderr, alone.stderr)
        server, port = start(binary, ["--metrics", "--metrics-token-file", token_file], folder)
        try:
            check("with a metrics token: refused without it, 200 with it",
                  port is not None and scrape(port)[0] == 401 and scrape(port, "wrong")[0] == 401
                  and scrape(port, "metrics-secret-0123456789abcdef")[0] == 200)
        finally:
            stop(server)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
