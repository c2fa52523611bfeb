"""The session list's filters and pages: many sessions, filtered by tag (typed, and clicked on a
session's tag), version and device, a page of 100 at a time with Older and Newer, as the server's
own `sessions` pages list them. Runs last: the sessions it adds push the demo's off the first
page."""
import json
import os
import sys
import time
import uuid as uuids

from selenium.webdriver.common.by import By

import harness
from pagekit import js, open_session, wait

PAGE = 100


def stream_tagged(port, app, count, version, meta):
    """Streams `count` one-event sessions of `app` with `version` and `meta` (device, tags), as
    an app would, each on a connection of its own; returns their uuids, oldest first."""
    sys.path.insert(0, os.path.join(harness.REPO, "Tests", "python"))
    from test_protocol import stable_hash
    state = {"n": 0}
    made = []
    for _ in range(count):
        session = str(uuids.uuid4())
        with harness.connect(f"ws://127.0.0.1:{port}/app", subprotocols=["rewind.app.v1"]) as ws:
            ws.send(json.dumps({"type": "hello", "id": 1, "session": session, "app": app, "version": version, "meta": meta}))
            ws.send(json.dumps({"type": "event", "seq": 0, "at": time.time(), "action": {"type": "@@INIT"},
                                "keyframe": state, "hash": stable_hash(state), "durationNs": 0}))
            deadline = time.monotonic() + 30
            while True:
                message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
                assert message.get("type") != "error", f"the server refused the session: {message}"
                if message.get("type") == "ack":
                    break
            ws.send(json.dumps({"type": "end", "id": 2}))
        made.append(session)
    return made


def listed(d):
    """The sessions the list shows: id and tags, top to bottom."""
    return js(d, """return [...document.querySelectorAll('#sessions .session')]
        .map(e => ({id: Number(e.dataset.id), tags: JSON.parse(e.dataset.tags || '[]')}))""")


def listed_ids(d):
    return [s["id"] for s in listed(d)]


def type_into(d, element_id, text):
    box = d.find_element(By.ID, element_id)
    box.clear()
    if text:
        box.send_keys(text)
    else:
        js(d, f"document.getElementById('{element_id}').dispatchEvent(new Event('input'))")


def server_page(ctx, after=None, **filters):
    request = dict(type="sessions", limit=PAGE, **filters)
    if after is not None:
        request["after"] = after
    reply = ctx.inspector.ask(**request)
    return [s["id"] for s in reply["sessions"]], reply["next"]


def test_session_list_filters_and_pages(ctx):
    d = ctx.driver
    port = ctx.server.port
    stream_tagged(port, "tagger", 130, "9.9", {"device": "Pixel 8", "tags": ["bug report"]})
    others = stream_tagged(port, "tagger", 12, "9.8", {"device": "Pixel 7", "tags": ["other", "qa"]})
    d.get("about:blank")
    d.get(ctx.server.url)
    wait(d, lambda d: len(listed_ids(d)) > 0, message="the first page listed")
    # Unfiltered, the list is one page: 100 sessions at most, with an older page to go to.
    wait(d, lambda d: len(listed_ids(d)) == PAGE, message="a full first page")
    assert d.find_element(By.ID, "sessions-older").is_enabled()
    assert not d.find_element(By.ID, "sessions-newer").is_enabled()

    # Typed tag: the first page of the server's own answer, every one tagged.
    type_into(d, "filter-tag", "bug report")
    first, cursor = server_page(ctx, tag="bug report")
    assert len(first) == PAGE and cursor == first[-1], (len(first), cursor)
    wait(d, lambda d: listed_ids(d) == first, message="page 1 of the tag, as the server lists it")
    assert all("bug report" in s["tags"] for s in listed(d))
    assert d.find_element(By.ID, "sessions-page").text == "page 1"

    # Older: the next page, nothing twice; then no older page.
    second, end = server_page(ctx, after=cursor, tag="bug report")
    assert end is None and len(second) == 30, (len(second), end)
    d.find_element(By.ID, "sessions-older").click()
    wait(d, lambda d: listed_ids(d) == second, message="page 2 of the tag")
    assert not set(first) & set(second), "a session on both pages"
    assert d.find_element(By.ID, "sessions-page").text == "page 2"
    assert not d.find_element(By.ID, "sessions-older").is_enabled()

    # Newer: back to the first page. A session recorded meanwhile joins its top, and the page
    # stays at 100: the one pushed off is the next page's first.
    d.find_element(By.ID, "sessions-newer").click()
    wait(d, lambda d: listed_ids(d) == first, message="back on page 1")
    late = stream_tagged(port, "tagger", 1, "9.9", {"device": "Pixel 8", "tags": ["bug report"]})[0]
    late_id = ctx.inspector.session(uuid=late)["id"]
    wait(d, lambda d: listed_ids(d) == [late_id] + first[:-1], message="the new session on top of page 1")
    d.find_element(By.ID, "sessions-older").click()
    wait(d, lambda d: listed_ids(d) == [first[-1]] + second, message="page 2 starting with the session pushed off page 1")

    # A tag clicked on a session filters by it; version and device narrow further.
    type_into(d, "filter-tag", "")
    other_ids = sorted((ctx.inspector.session(uuid=u)["id"] for u in others), reverse=True)
    wait(d, lambda d: any("qa" in s["tags"] for s in listed(d)), message="the other sessions listed")
    js(d, "document.querySelector(\"#sessions .session .tag[data-tag='qa']\").click()")
    wait(d, lambda d: listed_ids(d) == other_ids, message="only the sessions tagged qa")
    assert d.find_element(By.ID, "filter-tag").get_attribute("value") == "qa"
    assert not d.find_element(By.ID, "sessions-older").is_enabled()
    type_into(d, "filter-tag", "")
    type_into(d, "filter-version", "9.8")
    type_into(d, "filter-device", "Pixel 7")
    wait(d, lambda d: listed_ids(d) == other_ids, message="version 9.8 on a Pixel 7")
    type_into(d, "filter-device", "Pixel 8")
    wait(d, lambda d: listed_ids(d) == [] and "No session matches the filter." in d.find_element(By.ID, "sessions").text,
         message="nothing on a Pixel 8 at 9.8")
    type_into(d, "filter-version", "")
    type_into(d, "filter-device", "")
    wait(d, lambda d: len(listed_ids(d)) == PAGE, message="the whole list again")


def test_session_states_read_alike(ctx):
    """A session that ended, and one whose app went without `end`: the list says ended and
    interrupted, as the server's `state` does; `rewind sessions` says the same once no writer
    holds the log (checked in the Swift tests)."""
    d = ctx.driver
    step = ({"type": "bump"}, [{"op": "replace", "path": "/n", "value": 1}], {"n": 1}, None)
    ended = harness.stream_session(ctx.server.port, "states", {"n": 0}, [step], end=True)
    gone = harness.stream_session(ctx.server.port, "states", {"n": 0}, [step], end=False)
    ids = {}
    for uuid, state in ((ended, "ended"), (gone, "interrupted")):
        session = harness.wait_until(lambda: (lambda s: s if s and s.get("state") == state else None)(ctx.inspector.session(uuid=uuid)),
                                     message=f"the server to call {uuid} {state}")
        assert session["live"] is False, session
        ids[state] = session["id"]
    d.get("about:blank")
    d.get(ctx.server.url)

    def meta_of(session_id):
        return js(d, f"const e = document.querySelector('#sessions .session[data-id=\"{session_id}\"] .meta'); return e ? e.textContent : null")

    for state, session_id in ids.items():
        wait(d, lambda d: (meta_of(session_id) or "").split(" · ")[2:3] == [state],
             message=f"session #{session_id} listed as {state} (shown: {meta_of(session_id)})")


def test_a_crashed_session_is_marked(ctx):
    """A session that ends with @@rewind/crashed (what an app's next run delivers after a crash):
    the server's session object carries `crash`, the list marks the session with the signal and
    the action, and the crashed event's row is marked and says the same."""
    d = ctx.driver
    step = ({"type": "add", "amount": 5}, [{"op": "replace", "path": "/n", "value": 5}], {"n": 5}, None)
    crash = {"type": "@@rewind/crashed", "signal": "SIGILL", "number": 4, "lost": 2, "at": 1763700005000,
             "reducing": {"seq": 2, "type": "pay", "action": {"pay": {"_0": 5}}}}
    crashed = harness.stream_session(ctx.server.port, "crashing", {"n": 0}, [step, (crash, [], {"n": 5}, None)], end=True)
    session = harness.wait_until(lambda: (lambda s: s if s and s.get("state") == "ended" else None)(ctx.inspector.session(uuid=crashed)),
                                 message="the crashed session ended")
    assert session.get("crash") == crash, session
    open_session(ctx, session["id"])

    def crash_line():
        return js(d, f"const e = document.querySelector('#sessions .session[data-id=\"{session['id']}\"] .crash'); return e ? e.textContent : null")

    wait(d, lambda d: crash_line() == "crashed: SIGILL in pay (seq 2) · 2 recorded actions lost",
         message=f"the session marked crashed (shown: {crash_line()})")
    marked = js(d, f"return document.querySelector('#sessions .session[data-id=\"{session['id']}\"]').dataset.crashed")
    assert marked == "true", marked

    def crashed_row():
        return js(d, """const r = [...document.querySelectorAll('#list .row')].find(r => !r.hidden && r.dataset.seq === '2');
            return r ? {crashed: r.classList.contains('crashed'), type: r.querySelector('.type').textContent,
                        hint: r.querySelector('.hint').textContent} : null""")

    wait(d, lambda d: crashed_row() == {"crashed": True, "type": "@@rewind/crashed", "hint": "SIGILL in pay (seq 2) · 2 recorded actions lost"},
         message=f"the crashed event's row marked (shown: {crashed_row()})")
    # The session that did not crash is not marked.
    other = js(d, "return [...document.querySelectorAll('#sessions .session')].filter(s => s.dataset.crashed === 'true').length")
    assert other == 1, other
