#!/usr/bin/env python3
"""Speaks Rewind's wire protocol from Python, with nothing but the `websockets` package.

Starts `rewind serve` on a free port with a temporary log, connects as an app (hello, events
with patches and stable hashes computed here) and as an inspector (subscribe, live events,
state, events, errors), sends a catch-up in `events` batches, and prints `N passed, N failed`.

Usage: test_protocol.py PATH_TO_REWIND_BINARY
"""
import asyncio
import decimal
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import uuid

import websockets

# --- the stable hash: FNV-1a 64 over canonical JSON (Docs/Protocol.md) ---------------------

def canonical_number(text):
    d = decimal.Decimal(text)
    if d == 0:
        return "0"
    sign, digits, exponent = d.as_tuple()
    digits = list(digits)
    while digits and digits[0] == 0:
        digits.pop(0)
    while digits and digits[-1] == 0:
        digits.pop()
        exponent += 1
    out = ("-" if sign else "") + "".join(str(x) for x in digits)
    return out + (f"e{exponent}" if exponent != 0 else "")

def canonical_string(s):
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"': out.append('\\"')
        elif ch == '\\': out.append('\\\\')
        elif ch == '\n': out.append('\\n')
        elif ch == '\r': out.append('\\r')
        elif ch == '\t': out.append('\\t')
        elif ch == '\b': out.append('\\b')
        elif ch == '\f': out.append('\\f')
        elif c < 0x20: out.append('\\u00%02x' % c)
        else: out.append(ch)
    out.append('"')
    return "".join(out)

def canonical(value):
    if value is None: return "null"
    if value is True: return "true"
    if value is False: return "false"
    if isinstance(value, (int, decimal.Decimal)): return canonical_number(str(value))
    if isinstance(value, float): return canonical_number(repr(value))
    if isinstance(value, str): return canonical_string(value)
    if isinstance(value, list): return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(canonical_string(k) + ":" + canonical(value[k]) for k in sorted(value)) + "}"
    raise TypeError(type(value))

def stable_hash(value):
    h = 0xcbf29ce484222325
    for b in canonical(value).encode("utf-8"):
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h

# --- the tree hash, state hash version 2 (Docs/Protocol.md, "Version 2: the tree hash") ----

M64 = 0xFFFFFFFFFFFFFFFF
K1, K2, K3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9

def fin(x):
    x ^= x >> 31; x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 29; x = (x * 0x94D049BB133111EB) & M64
    return x ^ (x >> 32)

def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64

def step(a, w):
    return (rotl(a ^ ((w * K2) & M64), 31) * K1) & M64

def tree_bytes(tag, data):
    n, k = len(data), 0
    word = lambda at: int.from_bytes(data[at:at + 8], "little")
    acc = (tag * K3) & M64
    if n >= 32:
        a, b, c, d = acc ^ K1, acc ^ K2, (acc + K3) & M64, (acc - K1) & M64
        while k + 32 <= n:
            a, b, c, d = step(a, word(k)), step(b, word(k + 8)), step(c, word(k + 16)), step(d, word(k + 24))
            k += 32
        acc = (rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18)) & M64
    while k + 8 <= n:
        acc = step(acc, word(k))
        k += 8
    if k < n:
        acc = (rotl(acc ^ ((int.from_bytes(data[k:], "little") * K3) & M64), 23) * K2) & M64
    return fin(acc ^ ((n * K1) & M64))

def tree_value(value):
    if value is None: return fin(1 * K3)
    if value is False: return fin((2 * K3) & M64)
    if value is True: return fin((3 * K3) & M64)
    if isinstance(value, (int, float, decimal.Decimal)): return tree_bytes(4, canonical(value).encode())
    if isinstance(value, str): return tree_bytes(5, value.encode("utf-8"))
    if isinstance(value, list):
        acc = fin(((6 * K3) & M64) ^ len(value))
        for element in value:
            acc = (rotl((acc + tree_value(element) * K2) & M64, 29) * K1) & M64
        return fin(acc)
    if isinstance(value, dict):
        total = 0
        for key, member in value.items():
            total = (total + fin((tree_bytes(5, key.encode("utf-8")) + rotl(tree_value(member), 17) * K3) & M64)) & M64
        return fin(total ^ ((7 * K3) & M64) ^ ((len(value) * K2) & M64))
    raise TypeError(type(value))

def tree_hash(value):
    return "%016x" % tree_value(value)

# --- a tiny test runner -------------------------------------------------------------------

results = {"passed": 0, "failed": 0}

def check(name, condition, detail=""):
    if condition:
        results["passed"] += 1
        print(f"ok   {name}")
    else:
        results["failed"] += 1
        print(f"FAIL {name} {detail}")

async def receive_until(ws, predicate, timeout=10):
    async def loop():
        while True:
            message = json.loads(await ws.recv())
            if predicate(message):
                return message
    return await asyncio.wait_for(loop(), timeout)

# --- the scenario -------------------------------------------------------------------------

async def scenario(port):
    base = f"ws://127.0.0.1:{port}"
    session = str(uuid.uuid4())
    check("hash of a known document", stable_hash({"b": 1.0, "a": [True]}) == stable_hash({"a": [True], "b": 1}))

    async with websockets.connect(base + "/inspect", subprotocols=["rewind.inspect.v1"]) as inspector:
        await inspector.send(json.dumps({"type": "subscribe", "id": 1, "session": "*"}))
        reply = await receive_until(inspector, lambda m: m.get("id") == 1)
        check("subscribe reply", reply.get("type") == "subscribe" and reply.get("session") == "*", reply)

        async with websockets.connect(base + "/app", subprotocols=["rewind.app.v1"]) as app:
            await app.send(json.dumps({"type": "hello", "id": 1, "session": session, "app": "python", "meta": {"lang": "py"}}))
            welcome = await receive_until(app, lambda m: m.get("type") == "welcome")
            check("welcome with nextSeq 0", welcome.get("nextSeq") == 0 and welcome.get("id") == 1, welcome)

            state = {"todos": [], "filter": "all", "ratio": 0.5}
            events = [{"type": "event", "seq": 0, "at": 1763700000.0, "action": {"type": "@@INIT"},
                       "keyframe": state, "hash": stable_hash(state), "durationNs": 0}]
            for seq in range(1, 6):
                patch = [{"op": "add", "path": "/todos/-", "value": {"id": seq, "title": f"todo \"{seq}\"\n", "done": False}},
                         {"op": "replace", "path": "/ratio", "value": seq * 1.5}]
                state = json.loads(json.dumps(state))
                state["todos"].append({"id": seq, "title": f"todo \"{seq}\"\n", "done": False})
                state["ratio"] = seq * 1.5
                events.append({"type": "event", "seq": seq, "at": 1763700000.0 + seq, "action": {"type": "todo/add", "id": seq},
                               "patch": patch, "hash": stable_hash(state), "durationNs": 1200, "cause": seq - 1})
            for event in events:
                await app.send(json.dumps(event))
            acked = await receive_until(app, lambda m: m.get("type") == "error" or (m.get("type") == "ack" and m.get("seq") == 5))
            check("every event acked", acked.get("type") == "ack", acked)

            await app.send(json.dumps({"type": "event", "seq": 9, "at": 0, "action": {"type": "x"}, "patch": [], "hash": stable_hash(state)}))
            gap = await receive_until(app, lambda m: m.get("type") == "error")
            check("seq gap refused", gap.get("code") == "seq-gap", gap)

            live = []
            while len(live) < 6:
                message = json.loads(await asyncio.wait_for(inspector.recv(), 10))
                if message.get("type") == "event":
                    live.append(message)
            check("inspector got the live events in order", [m["seq"] for m in live] == list(range(6)), live)
            check("live events carry the session", all(m.get("session") == session for m in live))

            await inspector.send(json.dumps({"type": "state", "id": 2, "session": session[:8], "seq": 5, "path": "/todos/4/title"}))
            value = await receive_until(inspector, lambda m: m.get("id") == 2)
            check("state at a path", value.get("value") == "todo \"5\"\n", value)

            await inspector.send(json.dumps({"type": "state", "id": 3, "session": "latest", "seq": 5}))
            whole = await receive_until(inspector, lambda m: m.get("id") == 3)
            check("whole state and its hash", whole.get("value") == state and whole.get("hash") == stable_hash(state), whole)

            await inspector.send(json.dumps({"type": "events", "id": 4, "session": session, "from": 2, "limit": 2}))
            page = await receive_until(inspector, lambda m: m.get("id") == 4)
            check("events page", [e["seq"] for e in page.get("events", [])] == [2, 3] and page.get("next") == 4, page)

            await inspector.send(json.dumps({"type": "sessions", "id": 5}))
            sessions = await receive_until(inspector, lambda m: m.get("id") == 5)
            mine = [s for s in sessions.get("sessions", []) if s["uuid"] == session]
            check("sessions shows it live", len(mine) == 1 and mine[0]["live"] and mine[0]["eventCount"] == 6, sessions)

            await inspector.send("not json")
            error = await receive_until(inspector, lambda m: m.get("type") == "error")
            check("malformed JSON is an error with a code", error.get("code") == "bad-json", error)

        await tree_hash_session(base, inspector)
        await batch_session(base, inspector)

async def tree_hash_session(base, inspector):
    """A session with state hash version 2: every hash computed here from the written rules,
    every one checked by the server."""
    check("tree hash of the protocol's worked example",
          tree_hash(json.loads('{"ratio":1.50,"tags":[],"name":"Ann","count":100}', parse_float=decimal.Decimal)) == "5cb04455505f96ac")
    session = str(uuid.uuid4())
    async with websockets.connect(base + "/app", subprotocols=["rewind.app.v1"]) as app:
        await app.send(json.dumps({"type": "hello", "id": 1, "session": session, "app": "python-v2", "hashVersion": 2}))
        welcome = await receive_until(app, lambda m: m.get("type") in ("welcome", "error"))
        check("a version-2 hello is welcomed", welcome.get("type") == "welcome", welcome)
        state = {"users": {}, "log": [], "ratio": -0.25, "note": "ünïcödé ✓ and a long string past thirty-two bytes"}
        events = [{"type": "event", "seq": 0, "at": 1763700000.0, "action": {"type": "@@INIT"},
                   "keyframe": state, "hash": tree_hash(state), "durationNs": 0}]
        for seq in range(1, 8):
            name = f"user-{seq}"
            user = {"name": "x" * (seq * 7), "score": seq * 1.5, "tags": ["a", "b\n"][: seq % 3], "ok": seq % 2 == 0, "gone": None}
            state = json.loads(json.dumps(state))
            state["users"][name] = user
            state["log"].append(seq)
            patch = [{"op": "add", "path": f"/users/{name}", "value": user}, {"op": "add", "path": "/log/-", "value": seq}]
            events.append({"type": "event", "seq": seq, "at": 1763700000.0 + seq, "action": {"type": "user/add"},
                           "patch": patch, "hash": tree_hash(state), "durationNs": 1000})
        for event in events:
            await app.send(json.dumps(event))
        acked = await receive_until(app, lambda m: m.get("type") == "error" or (m.get("type") == "ack" and m.get("seq") == 7))
        check("every version-2 event acked", acked.get("type") == "ack", acked)

        wrong = {"type": "event", "seq": 8, "at": 1763700009.0, "action": {"type": "x"},
                 "patch": [{"op": "replace", "path": "/ratio", "value": 1}], "hash": None}
        state["ratio"] = 1
        wrong["hash"] = stable_hash(state)  # the version-1 hash of the right state
        await app.send(json.dumps(wrong))
        mismatch = await receive_until(app, lambda m: m.get("type") == "error")
        check("a version-1 hash in a version-2 session is a hash-mismatch", mismatch.get("code") == "hash-mismatch", mismatch)

    await inspector.send(json.dumps({"type": "state", "id": 7, "session": session, "seq": 7}))
    whole = await receive_until(inspector, lambda m: m.get("id") == 7)
    state["ratio"] = -0.25
    check("the server's state hash of a version-2 session", whole.get("hash") == tree_hash(state), whole)

    async with websockets.connect(base + "/app", subprotocols=["rewind.app.v1"]) as again:
        await again.send(json.dumps({"type": "hello", "id": 2, "session": session, "app": "python-v2"}))
        refused = await receive_until(again, lambda m: m.get("type") in ("welcome", "error"))
        check("resuming with another hash version is refused", refused.get("code") == "bad-message"
              and "hash version 2" in refused.get("message", ""), refused)
    async with websockets.connect(base + "/app", subprotocols=["rewind.app.v1"]) as other:
        await other.send(json.dumps({"type": "hello", "id": 3, "session": str(uuid.uuid4()), "app": "x", "hashVersion": 3}))
        refused = await receive_until(other, lambda m: m.get("type") in ("welcome", "error"))
        check("an unknown hash version is refused", refused.get("code") == "bad-message" and "hashVersion" in refused.get("message", ""), refused)

async def batch_session(base, inspector):
    """A catch-up sent as `events` batches (each event as in `event`, without its `type`), and
    the server's limits in `welcome`."""
    session = str(uuid.uuid4())
    async with websockets.connect(base + "/app", subprotocols=["rewind.app.v1"], max_size=None) as app:
        await app.send(json.dumps({"type": "hello", "id": 1, "session": session, "app": "python-batches"}))
        welcome = await receive_until(app, lambda m: m.get("type") in ("welcome", "error"))
        mib = 1 << 20
        check("welcome states the largest state (--max-state, 64 MiB by default)", welcome.get("maxState") == 64 * mib, welcome)
        check("welcome states the largest app message: the state limit + 1 MiB, above --max-message",
              welcome.get("maxMessage") == 65 * mib and welcome["maxMessage"] >= welcome["maxState"], welcome)

        state = {"n": 0, "items": []}
        events = [{"seq": 0, "at": 1763700000.0, "action": {"type": "@@INIT"}, "keyframe": state, "hash": stable_hash(state), "durationNs": 0}]
        for seq in range(1, 300):
            state = json.loads(json.dumps(state))
            state["n"] = seq
            state["items"].append({"id": seq, "text": f"item {seq}"})
            events.append({"seq": seq, "at": 1763700000.0 + seq / 1000, "action": {"type": "item/add", "id": seq},
                           "patch": [{"op": "replace", "path": "/n", "value": seq},
                                     {"op": "add", "path": "/items/-", "value": {"id": seq, "text": f"item {seq}"}}],
                           "hash": stable_hash(state), "durationNs": 700})
        sizes = []
        for start in range(0, len(events), 100):
            frame = json.dumps({"type": "events", "events": events[start:start + 100]})
            sizes.append(len(frame.encode()))
            await app.send(frame)
        check("every batch within the server's largest message", max(sizes) <= welcome["maxMessage"], sizes)
        acked = await receive_until(app, lambda m: m.get("type") == "error" or (m.get("type") == "ack" and m.get("seq") == 299))
        check("300 events in 3 batches, acked by the highest seq", acked.get("type") == "ack" and len(sizes) == 3, acked)

        pushed = []
        def live(message):
            if message.get("type") == "event" and message.get("session") == session:
                pushed.append(message["seq"])
            return len(pushed) == 300
        await receive_until(inspector, live)
        check("the inspector got each batched event as its own push, in order", pushed == list(range(300)), pushed[:5])

        # A refused event stops its batch: the ones before it stand, the error is that event's.
        more = []
        for seq in range(300, 303):
            state = json.loads(json.dumps(state))
            state["n"] = seq
            more.append({"seq": seq, "at": 1763700001.0, "action": {"type": "inc"},
                         "patch": [{"op": "replace", "path": "/n", "value": seq}], "hash": stable_hash(state)})
        wrong = dict(more[1], hash="0000000000000001")
        await app.send(json.dumps({"type": "events", "events": [more[0], wrong, more[2]]}))
        refused = await receive_until(app, lambda m: m.get("type") == "error")
        check("a wrong hash in a batch is that event's hash-mismatch", refused.get("code") == "hash-mismatch"
              and refused.get("message", "").startswith("event 301"), refused)
        await receive_until(app, lambda m: m.get("type") == "ack" and m.get("seq") == 300)
        await app.send(json.dumps({"type": "events", "events": more[1:]}))
        acked = await receive_until(app, lambda m: m.get("type") == "error" or (m.get("type") == "ack" and m.get("seq") == 302))
        check("the rest of the batch sent again is stored", acked.get("type") == "ack", acked)

    await inspector.send(json.dumps({"type": "state", "id": 8, "session": session, "seq": 302}))
    whole = await receive_until(inspector, lambda m: m.get("id") == 8)
    check("the state after the batches", whole.get("value") == state and whole.get("hash") == stable_hash(state), whole.get("hash"))

def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "rewind"
    with tempfile.TemporaryDirectory() as folder:
        db = os.path.join(folder, "rewind.db")
        server = subprocess.Popen([binary, "serve", "--port", "0", "--db", db, "--web", folder],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            port = None
            for line in server.stdout:
                match = re.search(r"ws://127\.0\.0\.1:(\d+)/app", line)
                if match:
                    port = int(match.group(1))
                    break
            check("rewind serve started", port is not None)
            if port is not None:
                try:
                    asyncio.run(scenario(port))
                except Exception as error:  # a failure to talk is a failed test, not a crash
                    check("scenario ran to the end", False, repr(error))
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                check("rewind serve exits 0 on SIGTERM", server.wait(timeout=20) == 0)
            except subprocess.TimeoutExpired:
                server.kill()
                check("rewind serve exits 0 on SIGTERM", False, "timed out")
        verify = subprocess.run([binary, "verify", "--db", db], capture_output=True, text=True)
        check("rewind verify passes on what Python streamed", verify.returncode == 0, verify.stdout + verify.stderr)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0

if __name__ == "__main__":
    sys.exit(main())
