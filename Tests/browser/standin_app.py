#!/usr/bin/env python3
"""A stand-in for `rewind demo`: one small app streaming to `rewind serve` over `/app`.

Same flags as `rewind demo` (--server URL, --app NAME, --rate N, --duration S, --state-log FILE):
an image gallery store adds, likes, selects and removes images at N actions per second, obeys
the inspector's commands (jump locks the store on the state sent, resume unlocks it, dispatch
sends an action, pause stops recording, replay runs the actions given), and appends one JSON
line per change of the state it shows to --state-log:
{"app":"images","session":"<uuid>","hash":"<16 hex>","locked":true|false}.

After --duration seconds it stops acting but stays connected (commands still work) until it is
terminated; --duration 0 acts until terminated. The browser tests stream `rewind demo`; this
stand-in serves Tests/browser/measure.py, which needs 1,000 actions a second (the demo's scripted
users wait on a pretend back end and make a few dozen).
"""
import argparse
import asyncio
import copy
import json
import os
import random
import signal
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from test_protocol import stable_hash  # noqa: E402  (the protocol's hash, written once)

import websockets  # noqa: E402


class Gallery:
    """The store: its state, its reducer, and the patch each action makes."""

    def __init__(self):
        self.state = {"images": [], "selected": None, "likes": 0, "nextId": 1, "filter": "all"}
        self.rng = random.Random(7)

    def next_action(self):
        images = self.state["images"]
        roll = self.rng.random()
        # A small gallery keeps hashing cheap enough for 1,000 actions a second in Python.
        if len(images) > 12:
            return {"type": "images/remove", "id": images[0]["id"]}
        if not images or roll < 0.35:
            return {"type": "images/add", "title": f"photo {self.state['nextId']}", "width": self.rng.choice([640, 800, 1024])}
        if roll < 0.6:
            return {"type": "images/like", "id": self.rng.choice(images)["id"]}
        if roll < 0.8:
            return {"type": "images/select", "id": self.rng.choice(images)["id"]}
        if roll < 0.9 and len(images) > 8:
            return {"type": "images/remove", "id": images[0]["id"]}
        return {"type": "filter/set", "filter": self.rng.choice(["all", "liked", "recent"])}

    def reduce(self, action):
        """Applies `action`; returns the RFC 6902 patch it made."""
        s = self.state
        kind = action.get("type")
        if kind == "images/add":
            image = {"id": s["nextId"], "title": action.get("title", ""), "width": action.get("width", 640), "likes": 0}
            s["images"].append(image)
            s["nextId"] += 1
            return [{"op": "add", "path": "/images/-", "value": copy.deepcopy(image)},
                    {"op": "replace", "path": "/nextId", "value": s["nextId"]}]
        index = next((i for i, im in enumerate(s["images"]) if im["id"] == action.get("id")), None)
        if kind == "images/like" and index is not None:
            s["images"][index]["likes"] += 1
            s["likes"] += 1
            return [{"op": "replace", "path": f"/images/{index}/likes", "value": s["images"][index]["likes"]},
                    {"op": "replace", "path": "/likes", "value": s["likes"]}]
        if kind == "images/select" and index is not None:
            s["selected"] = action["id"]
            return [{"op": "replace", "path": "/selected", "value": action["id"]}]
        if kind == "images/remove" and index is not None:
            del s["images"][index]
            ops = [{"op": "remove", "path": f"/images/{index}"}]
            if s["selected"] == action["id"]:
                s["selected"] = None
                ops.append({"op": "replace", "path": "/selected", "value": None})
            return ops
        if kind == "filter/set":
            s["filter"] = action.get("filter", "all")
            return [{"op": "replace", "path": "/filter", "value": s["filter"]}]
        return []


class App:
    def __init__(self, args):
        self.args = args
        self.session = str(uuid.uuid4())
        self.store = Gallery()
        self.seq = 0
        self.locked = False
        self.paused = False
        self.shown_hash = None
        self.log = open(args.state_log, "a", buffering=1) if args.state_log else None

    def log_state(self, state, h=None):
        h = h or stable_hash(state)
        if self.log and (h, self.locked) != self.shown_hash:
            self.log.write(json.dumps({"app": self.args.app, "session": self.session, "hash": h, "locked": self.locked}) + "\n")
        self.shown_hash = (h, self.locked)

    async def send_action(self, ws, action, cause=None):
        patch = self.store.reduce(action)
        h = stable_hash(self.store.state)
        self.log_state(self.store.state, h)
        if self.paused:
            return
        self.seq += 1
        event = {"type": "event", "seq": self.seq, "at": time.time(), "action": action, "patch": patch,
                 "hash": h, "durationNs": random.randint(800, 90000)}
        if cause is not None:
            event["cause"] = cause
        await ws.send(json.dumps(event))

    async def run(self):
        url = self.args.server.rstrip("/")
        if not url.endswith("/app"):
            url += "/app"
        async with websockets.connect(url, subprotocols=["rewind.app.v1"], max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1, "session": self.session, "app": self.args.app, "version": "standin"}))
            await ws.send(json.dumps({"type": "event", "seq": 0, "at": time.time(), "action": {"type": "@@INIT"},
                                      "keyframe": self.store.state, "hash": stable_hash(self.store.state), "durationNs": 0}))
            self.log_state(self.store.state)
            await asyncio.gather(self.act(ws), self.listen(ws))

    async def act(self, ws):
        start = time.monotonic()
        sent = 0
        while self.args.duration == 0 or time.monotonic() - start < self.args.duration:
            await asyncio.sleep(0.01)
            due = int((time.monotonic() - start) * self.args.rate) - sent
            for _ in range(max(0, due)):
                sent += 1
                if self.locked:
                    continue
                # Every seventh action is the effect of the one before it.
                cause = self.seq if sent % 7 == 0 and self.seq > 0 else None
                await self.send_action(ws, self.store.next_action(), cause)
        await asyncio.Future()  # stay connected for commands until terminated

    async def listen(self, ws):
        async for text in ws:
            message = json.loads(text)
            if message.get("type") != "command":
                continue
            kind, ok, note = message.get("kind"), True, None
            if kind == "jump":
                self.locked = True
                self.log_state(message.get("state"))
            elif kind == "resume":
                self.locked = False
                self.paused = False
                self.log_state(self.store.state)
            elif kind == "pause":
                self.paused = True
            elif kind == "dispatch":
                if self.locked:
                    ok, note = False, "the store is locked (a jump or a replay); resume first"
                else:
                    await self.send_action(ws, message.get("action") or {})
            elif kind == "replay":
                actions = message.get("actions") or []
                note = f"replayed {len(actions)} actions"
            else:
                ok, note = False, f"unknown command {kind}"
            reply = {"type": "result", "id": message.get("id"), "ok": ok}
            if note:
                reply["message"] = note
            await ws.send(json.dumps(reply))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--app", default="images")
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--duration", type=float, default=0)
    parser.add_argument("--state-log")
    args = parser.parse_args()
    loop = asyncio.new_event_loop()
    task = loop.create_task(App(args).run())
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        loop.run_until_complete(task)
    except asyncio.CancelledError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
