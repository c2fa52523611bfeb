"""Checks that reach through the server: commands to the app, the token, reconnecting."""
import json
import os
import subprocess
import re
import shutil
import sys
import time
import urllib.request
import uuid as uuids

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from harness import wait_until
from pagekit import dom_rows, js, open_session, press, shown_seq, shown_state, wait


def test_jump_and_resume_reach_the_app(ctx):
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    d.find_element(By.ID, "follow").click()
    seq = 7
    d.find_element(By.ID, "slider").click()
    d.find_element(By.ID, "slider").send_keys(Keys.HOME)
    for _ in range(seq):
        d.find_element(By.ID, "slider").send_keys(Keys.ARROW_RIGHT)
    wait(d, lambda d: shown_seq(d) == seq, message=f"#{seq} selected")
    event = ctx.inspector.ask(type="events", session=ctx.live["uuid"], **{"from": seq, "limit": 1})["events"][0]
    before = len(ctx.app.lines())
    wait(d, lambda d: d.find_element(By.ID, "jump").is_enabled(), message="jump enabled")
    d.find_element(By.ID, "jump").click()
    line = wait_until(lambda: next((l for l in ctx.app.lines()[before:] if l["locked"] and l["hash"] == event["hash"]), None),
                      message=f"the app's state log to show #{seq} locked ({event['hash']})")
    assert line["session"] == ctx.live["uuid"]
    after_jump = len(ctx.app.lines())
    d.find_element(By.ID, "resume").click()
    wait_until(lambda: any(not l["locked"] for l in ctx.app.lines()[after_jump:]), message="an unlocked line after resume")
    wait(d, lambda d: "back to its live state" in d.find_element(By.ID, "message").text, message="resume confirmed on the page")


def test_dispatch_and_replay_reach_the_app(ctx):
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    wait(d, lambda d: d.find_element(By.ID, "dispatch").is_enabled(), message="dispatch enabled")
    box = d.find_element(By.ID, "dispatch-text")
    box.send_keys("{not json")
    d.find_element(By.ID, "dispatch").click()
    wait(d, lambda d: "not JSON" in d.find_element(By.ID, "message").text, message="bad JSON refused on the page")
    box.clear()
    box.send_keys('{"type": "images/like"}')
    d.find_element(By.ID, "dispatch").click()
    wait(d, lambda d: d.find_element(By.ID, "message").text == "dispatched", message="the app's answer to dispatch")
    set_range(d, "1", "5", "50")
    before = len(ctx.app.lines())
    d.find_element(By.ID, "replay").click()
    # The app counts the actions it replayed: #1…#5 are five.
    wait(d, lambda d: "replayed 5 actions" in d.find_element(By.ID, "message").text, message="the app's answer to replay")
    wait_until(lambda: any(l["locked"] for l in ctx.app.lines()[before:]), message="the app's store locked by the replay")
    d.find_element(By.ID, "resume").click()
    wait(d, lambda d: "back to its live state" in d.find_element(By.ID, "message").text, message="resumed")
    # From 0: seq 0 is the initial state, so the actions sent are #1…#3 (as `rewind replay --into`
    # sends them), starting from the state at #0. The app records the replay as a new session
    # (the demo's carries no replayOf): its initial state and actions are what the page sent.
    known = {s["id"] for s in ctx.inspector.ask(type="sessions")["sessions"]}
    set_range(d, "0", "3", "0")
    d.find_element(By.ID, "replay").click()
    wait(d, lambda d: "replayed #1…#3" in d.find_element(By.ID, "message").text and "replayed 3 actions" in d.find_element(By.ID, "message").text,
         message="the replay from 0 to send #1…#3")
    replay = wait_until(lambda: next((s for s in ctx.inspector.ask(type="sessions")["sessions"]
                                      if s["id"] not in known and s["app"] == ctx.live["app"] and s["lastSeq"] == 3), None),
                        message="the app's recording of the replay, #0…#3")
    recorded = ctx.inspector.ask(type="events", session=replay["uuid"], **{"from": 0, "limit": 4})["events"]
    original = ctx.inspector.ask(type="events", session=ctx.live["uuid"], **{"from": 1, "limit": 3})["events"]
    assert recorded[0]["keyframe"] == ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=0)["value"], \
        "the replay did not start from the state at #0"
    assert [e["action"] for e in recorded[1:]] == [e["action"] for e in original], "the replayed actions are not #1…#3"
    d.find_element(By.ID, "resume").click()
    wait(d, lambda d: "back to its live state" in d.find_element(By.ID, "message").text, message="resumed")


def set_range(d, first, last, pace):
    for field, value in (("replay-from", first), ("replay-to", last), ("replay-pace", pace)):
        d.find_element(By.ID, field).clear()
        d.find_element(By.ID, field).send_keys(value)


def test_replay_too_large_is_refused(ctx):
    """A replay message over the server's limit is refused on the page, in one sentence naming
    its size and the limit, and never sent (the server would close the connection). The page
    cannot learn a limit other than the default 16 MiB, so the check lowers the page's figure
    rather than building a 16 MiB session."""
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    wait(d, lambda d: d.find_element(By.ID, "replay").is_enabled(), message="replay enabled")
    limit = 2048
    js(d, "window.__rewind.connection.maxMessage = arguments[0]", limit)
    last = 40
    set_range(d, "1", str(last), "0")
    before = len(ctx.app.lines())
    d.find_element(By.ID, "replay").click()
    pattern = re.compile(rf"^replay: #1…#{last} with its starting state is ([\d.]+) KiB, over the server's 2\.0 KiB message limit: replay a shorter range$")
    wait(d, lambda d: pattern.match(d.find_element(By.ID, "message").text), message="the size refused on the page")
    shown = float(pattern.match(d.find_element(By.ID, "message").text).group(1)) * 1024
    # What the page would have sent: the state before #1 and the actions #1…#40 with where the
    # app sent each, as the server has them.
    state = ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=0)["value"]
    events = ctx.inspector.ask(type="events", session=ctx.live["uuid"], **{"from": 1, "limit": last})["events"]
    actions = [e["action"] for e in events]
    sites = [e.get("site") for e in events]
    payload = len(json.dumps({"state": state, "actions": actions, "sites": sites}, ensure_ascii=False, separators=(",", ":")).encode())
    assert payload <= shown <= payload + 400, f"the page says {shown:.0f} bytes; the state, actions and sites alone are {payload}"
    assert d.find_element(By.ID, "status").text == "connected"
    assert not any(l["locked"] for l in ctx.app.lines()[before:]), "the app received a replay"


def test_replay_range_after_sessions_reload(ctx):
    """The page reloads its sessions when a live event names a session it does not know. The
    open session must then be the reloaded list's entry, which live events keep counting:
    Replay's range check reads it, so a replay up to the newest seq is accepted."""
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    wait(d, lambda d: d.find_element(By.ID, "replay").is_enabled(), message="replay enabled")
    # As if the page had missed the session's push: the next live event reloads the sessions.
    js(d, "const p = window.__rewind.page; p.sessions.delete(p.current.id)")
    wait(d, lambda d: js(d, "const p = window.__rewind.page; return p.sessions.has(p.current.id)"), message="the sessions reloaded")
    newest = ctx.inspector.session(uuid=ctx.live["uuid"])["lastSeq"] + 3
    item = f"#sessions .session[data-id='{ctx.live['id']}']"
    wait(d, lambda d: int(js(d, f"const e = document.querySelector(\"{item}\"); return e ? e.dataset.count : 0")) > newest,
         message=f"the session list to count past #{newest}")
    set_range(d, str(newest - 2), str(newest), "0")
    d.find_element(By.ID, "replay").click()
    wait(d, lambda d: d.find_element(By.ID, "message").text.startswith("replayed") or "must be" in d.find_element(By.ID, "message").text,
         message="the replay's outcome")
    said = d.find_element(By.ID, "message").text
    assert f"replayed #{newest - 2}…#{newest}" in said, f"the replay of #{newest - 2}…#{newest} refused: {said}"
    d.find_element(By.ID, "resume").click()
    wait(d, lambda d: "back to its live state" in d.find_element(By.ID, "message").text, message="resumed")


def test_token_through_the_cookie(ctx):
    """A server with a token: the page opened with ?token= connects and downloads with its cookie."""
    d = ctx.driver
    folder = os.path.join(ctx.folder, "token")
    os.makedirs(folder)
    small = os.path.join(ctx.folder, "small.jsonl")
    harness.import_file(ctx.server.binary, os.path.join(folder, "rewind.db"), small, "small")
    server = harness.Server(ctx.server.binary, folder, extra=("--token", "s3cret-token"))
    try:
        d.get("about:blank")
        d.get(f"{server.url}")
        wait(d, lambda d: "token" in d.find_element(By.TAG_NAME, "body").text, message="a page without the token refused")
        d.get(f"{server.url}?token=s3cret-token")
        wait(d, lambda d: d.find_element(By.ID, "status").text == "connected", message="connected with the cookie")
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#sessions .session"), message="the session listed")
        wait(d, lambda d: shown_seq(d) is not None, message="a state shown")
        name = "rewind-session-1.jsonl"
        path = os.path.join(ctx.downloads, name)
        if os.path.exists(path):
            os.remove(path)
        d.find_element(By.ID, "export-jsonl").click()
        wait_until(lambda: os.path.exists(path) and not os.path.exists(path + ".crdownload"), message="the export downloaded")
        expected = server.cli("export", "1", "--format", "jsonl")
        wait_until(lambda: os.path.getsize(path) == len(expected), message="the export complete")
    finally:
        server.stop()


def test_page_over_https(ctx):
    """`rewind serve --tls-cert --tls-key` with a token: the page loads over https, its socket is
    wss (the server takes nothing else), it connects with the cookie and shows a session."""
    folder = os.path.join(ctx.folder, "tls")
    os.makedirs(folder)
    cert, key = os.path.join(folder, "server.pem"), os.path.join(folder, "server.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    harness.import_file(ctx.server.binary, os.path.join(folder, "rewind.db"), os.path.join(ctx.folder, "small.jsonl"), "small")
    server = harness.Server(ctx.server.binary, folder, extra=("--tls-cert", cert, "--tls-key", key, "--token", "tls-token"))
    d = harness.browser(insecure=True)
    try:
        assert server.url.startswith("https://"), server.url
        d.get(f"{server.url}?token=tls-token")
        wait(d, lambda d: d.find_element(By.ID, "status").text == "connected", message="connected over wss")
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#sessions .session"), message="the session listed")
        wait(d, lambda d: shown_seq(d) is not None, message="a state shown")
        assert d.execute_script("return location.protocol") == "https:"
    finally:
        d.quit()
        server.stop()


def test_copied_binary_serves_its_page(ctx):
    """`rewind` copied alone into another folder and run by its bare name, through a symlink on
    the PATH, from yet another working directory, without --web: the page built into it loads,
    connects and shows a session, and every file it serves is web/'s, byte for byte."""
    d = ctx.driver
    folder = os.path.join(ctx.folder, "installed")
    bin_dir, opt, work = (os.path.join(folder, name) for name in ("bin", "opt", "work"))
    for path in (bin_dir, opt, work):
        os.makedirs(path)
    shutil.copy2(ctx.server_binary, os.path.join(opt, "rewind"))
    os.symlink(os.path.join(opt, "rewind"), os.path.join(bin_dir, "rewind"))
    env = dict(os.environ, PATH=os.pathsep.join([bin_dir, "/usr/bin", "/bin"]))
    harness.import_file("rewind", os.path.join(work, "rewind.db"), os.path.join(ctx.folder, "small.jsonl"), "small", env=env)
    server = harness.Server("rewind", work, web=None, cwd=work, env=env)
    try:
        assert "no inspector page" not in server.output, server.output
        d.get("about:blank")
        d.get(server.url)
        wait(d, lambda d: d.find_element(By.ID, "status").text == "connected", message="the page connected")
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#sessions .session"), message="the session listed")
        wait(d, lambda d: shown_seq(d) is not None, message="a state shown")
        web = os.path.join(harness.REPO, "web")
        for root, _, files in os.walk(web):
            for name in files:
                if name.startswith("."):
                    continue
                relative = os.path.relpath(os.path.join(root, name), web)
                with urllib.request.urlopen(f"{server.url}{relative}") as response, open(os.path.join(root, name), "rb") as f:
                    assert response.read() == f.read(), f"{relative} served differs from web/{relative}"
    finally:
        server.stop()


def test_reconnects_and_resubscribes(ctx):
    """Last: restarts the server on the same port and log. The open session, whose app
    reconnects and goes on streaming, is caught up from the log; then a new app streams to it."""
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    wait(d, lambda d: d.find_element(By.ID, "status").text == "connected", message="connected")
    d.find_element(By.ID, "follow").click()
    press(d, Keys.HOME, *(["j"] * 6))
    wait(d, lambda d: shown_seq(d) == 6, message="#6 selected")
    ctx.inspector.close()
    ctx.server.stop()
    wait(d, lambda d: "reconnecting" in d.find_element(By.ID, "status").text, message="the page to notice")
    stopped_at = js(d, "return window.__rewind.page.store.total")
    ctx.server = harness.Server(ctx.server.binary, ctx.folder, port=ctx.server.port)
    wait(d, lambda d: d.find_element(By.ID, "status").text == "connected", timeout=30, message="reconnected by itself")
    ctx.inspector = harness.Inspector(ctx.server.port)
    # The app reconnects to the same session and goes on; once it has sent more, stop it so
    # the session's length is final.
    wait_until(lambda: (ctx.inspector.session(uuid=ctx.live["uuid"])["lastSeq"] or 0) >= stopped_at + 5, timeout=30,
               message="the app to resume its session on the new server")
    ctx.app.stop()
    wait_until(lambda: not ctx.inspector.session(uuid=ctx.live["uuid"])["live"], message="the session ended")
    final = ctx.inspector.session(uuid=ctx.live["uuid"])
    count = final["lastSeq"] + 1
    wait(d, lambda d: int(js(d, "return document.getElementById('count').dataset.matches")) == count,
         message=f"the open session's list to count {count} events, as the server does")
    item = f"#sessions .session[data-id='{final['id']}']"
    wait(d, lambda d: js(d, f"const e = document.querySelector(\"{item}\"); return e && e.dataset.count") == str(count),
         message="the session list's count to match the server's")
    assert js(d, "const p = window.__rewind.page; return p.current === p.sessions.get(p.current.id) && p.current.lastSeq") == final["lastSeq"], \
        "the open session is not the session list's entry"
    assert shown_seq(d) == 6, f"#{shown_seq(d)} shown after the reconnect, #6 was selected"
    assert shown_state(d) == ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=6)["value"], "state #6 differs from the server's"

    ctx.app = harness.App(ctx.server.binary, ctx.server, os.path.join(ctx.folder, "state2.log"))
    fresh = wait_until(lambda: next((s for s in ctx.inspector.ask(type="sessions")["sessions"]
                                     if s["app"] == ctx.live["app"] and s["live"] and s["uuid"] != ctx.live["uuid"]), None),
                       message="the new app's session")
    # The list is redrawn as counts change: click whichever element is there now.
    wait(d, lambda d: js(d, "const e = document.querySelector(`#sessions .session[data-id='${arguments[0]}']`); if (e) e.click(); return !!e",
                         fresh["id"]), message="the new session listed")
    wait(d, lambda d: js(d, "return window.__rewind.page.current.id") == fresh["id"], message="the new session open")
    target = (ctx.inspector.session(uuid=fresh["uuid"])["lastSeq"] or 0) + 5
    wait(d, lambda d: int(js(d, "return document.getElementById('count').dataset.matches")) > target, message="live events after the reconnect")


def test_branch_beside_its_original(ctx):
    """Leave out and edit an action from the action pane: the demo's reducer recomputes the
    session into a branch, shown beside its original (the diff at a seq and the first
    difference, as the server's compare gives them); without an app, one sentence."""
    d = ctx.driver
    # The demo's session now (an earlier check may have restarted the app).
    live = next(x for x in sorted(ctx.inspector.ask(type="sessions")["sessions"], key=lambda x: -x["id"])
                if x["live"] and x["app"].lower() == "images demo" and not x.get("replayOf"))
    open_session(ctx, live["id"])
    d.find_element(By.ID, "follow").click()
    js(d, "window.__rewind.select(3, 'click', {center: true})")
    wait(d, lambda d: shown_seq(d) == 3, message="#3 selected")
    d.find_element(By.ID, "tab-action").click()
    d.find_element(By.ID, "branch-skip").click()
    wait(d, lambda d: js(d, "return document.getElementById('branch-result').dataset.state") == "done", message="the branch", timeout=30)
    branch = js(d, "return document.getElementById('branch-result').dataset.uuid")
    made = wait_until(lambda: ctx.inspector.session(uuid=branch), message="the branch session on the server")
    assert made["replayOf"] == live["uuid"], made
    assert made["meta"]["branch"]["skipped"] == [3], made["meta"]
    skipped = ctx.inspector.ask(type="events", session=branch, **{"from": 3, "limit": 1})["events"][0]
    assert skipped["actionType"] == "@@rewind/skipped", skipped

    # Listed right under its original (after the replays and branches made of it before), as
    # "branch of #N · left out #3", and not as one more store of the original's run.
    wait(d, lambda d: js(d, f"return [...window.__rewind.page.sessions.values()].some(s => s.uuid === '{branch}')"), message="the branch listed")
    label = f"branch of #{live['id']} · left out #3"
    item = f"#sessions .session[data-id='{made['id']}']"
    wait(d, lambda d: js(d, f"const e = document.querySelector(\"{item}\"); return e && e.dataset.derived") == label, message="the branch's label")
    # Read in one call: the list redraws on each live event, so a found element can go stale.
    text = js(d, f"return document.querySelector(\"{item}\").innerText")
    assert label in text, text
    listed = js(d, "return [...document.querySelectorAll('#sessions .session')].map(e => [Number(e.dataset.id), e.dataset.derived || ''])")
    ids = [i for i, _ in listed]
    between = listed[ids.index(live["id"]) + 1:ids.index(made["id"])]
    assert ids.index(made["id"]) > ids.index(live["id"]) and all(f"of #{live['id']}" in note for _, note in between), listed
    assert js(d, f"return document.querySelector(\"#sessions .run-group[data-run='{live['run']}']\")") is None, \
        "the branch counted as a store of the original's run"

    # Open it: its offsets read as the original's (seq 0 has the original's time), and the
    # "vs original" tab compares it with the session it came from.
    js(d, "document.querySelector('#branch-result a').click()")
    wait(d, lambda d: js(d, "return window.__rewind.page.current.uuid") == branch, message="the branch open")
    assert label in d.find_element(By.ID, "title").text, d.find_element(By.ID, "title").text
    firsts = ctx.inspector.ask(type="events", session=live["uuid"], **{"from": 0, "limit": 3})["events"]
    assert made["startedAt"] == firsts[0]["at"], (made["startedAt"], firsts[0]["at"])
    js(d, "window.__rewind.list.viewport.scrollTop = 0")
    wait(d, lambda d: js(d, "const r = document.querySelector(\"#list .row[data-seq='2']:not(.loading)\"); return r && r.querySelector('.time').textContent")
         == f"+{firsts[2]['at'] - firsts[0]['at']:.3f}s", message="the branch's #2 at the original's offset")
    assert js(d, "return document.querySelector(\"#list .row[data-seq='0'] .time\").textContent") == "+0.000s"
    wait(d, lambda d: not d.find_element(By.ID, "tab-original").get_attribute("hidden"), message="the vs original tab")
    d.find_element(By.ID, "tab-original").click()
    js(d, "window.__rewind.select(5, 'click', {center: true})")
    wait(d, lambda d: js(d, "const v = document.getElementById('original-view'); return v.dataset.state === 'ready' && v.dataset.seq") == "5",
         message="original → branch at #5")
    compare = ctx.inspector.ask(type="compare", session=live["uuid"], **{"with": branch, "seq": 5})
    shown = js(d, "return [...document.querySelectorAll('#original-diff .change')].map(c => c.dataset.path)")
    assert shown == [op["path"] for op in compare["patch"]], f"{shown} != {compare['patch']}"
    first = js(d, "return document.getElementById('original-view').dataset.first")
    assert first == ("" if compare["firstDifference"] is None else str(compare["firstDifference"])), (first, compare)

    # Edit an action of the original: the box holds it as recorded; the branch holds the edit.
    open_session(ctx, live["id"])
    d.find_element(By.ID, "follow").click()
    js(d, "window.__rewind.select(4, 'click', {center: true})")
    wait(d, lambda d: shown_seq(d) == 4, message="#4 selected")
    d.find_element(By.ID, "tab-action").click()
    d.find_element(By.ID, "branch-edit").click()
    recorded = ctx.inspector.ask(type="events", session=live["uuid"], **{"from": 4, "limit": 1})["events"][0]["action"]
    assert json.loads(d.find_element(By.ID, "branch-edit-text").get_attribute("value")) == recorded
    js(d, "document.getElementById('branch-edit-text').value = JSON.stringify({type: 'images/like'})")
    d.find_element(By.ID, "branch-edit-run").click()
    wait(d, lambda d: js(d, "return document.getElementById('branch-result').dataset.state") == "done"
         and js(d, "return document.getElementById('branch-result').dataset.uuid") != branch, message="the edited branch", timeout=30)
    edited = js(d, "return document.getElementById('branch-result').dataset.uuid")
    wait_until(lambda: ctx.inspector.session(uuid=edited), message="the edited branch on the server")
    event = ctx.inspector.ask(type="events", session=edited, **{"from": 4, "limit": 1})["events"][0]
    assert event["action"] == {"type": "images/like"}, event

    # An imported session has no app: the server's sentence says a branch needs one.
    open_session(ctx, ctx.small["id"])
    js(d, "window.__rewind.select(3, 'click', {center: true})")
    wait(d, lambda d: shown_seq(d) == 3, message="#3 of the imported session")
    d.find_element(By.ID, "tab-action").click()
    d.find_element(By.ID, "branch-skip").click()
    wait(d, lambda d: "a branch needs the app's reducer" in d.find_element(By.ID, "message").text, message="the sentence without an app")


def test_a_missed_live_event_is_read_from_the_log(ctx):
    """A live event the page never got (dropped here in the page, as one is when the server skips
    it for a page that lags): the session's push when it ends gives its length, and the list
    grows to it, reading the rows it lacks from the log."""
    sys.path.insert(0, os.path.join(harness.REPO, "Tests", "python"))
    from test_protocol import stable_hash
    d = ctx.driver
    session = str(uuids.uuid4())
    with harness.connect(f"ws://127.0.0.1:{ctx.server.port}/app", subprotocols=["rewind.app.v1"], max_size=None) as ws:
        def send(seq):
            state = {"n": seq}
            event = {"type": "event", "seq": seq, "at": time.time(), "hash": stable_hash(state), "durationNs": 1000}
            if seq == 0:
                event.update(action={"type": "@@INIT"}, keyframe=state)
            else:
                event.update(action={"type": "missed/add"}, patch=[{"op": "replace", "path": "/n", "value": seq}])
            ws.send(json.dumps(event))

        def acked(seq):
            deadline = time.monotonic() + 30
            while True:
                message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
                assert message.get("type") != "error", f"the server refused the stream: {message}"
                if message.get("type") == "ack" and message.get("seq", -1) >= seq:
                    return

        ws.send(json.dumps({"type": "hello", "id": 1, "session": session, "app": "missed"}))
        for seq in range(4):
            send(seq)
        acked(3)
        made = wait_until(lambda: ctx.inspector.session(uuid=session), message="the session on the server")
        open_session(ctx, made["id"])
        count = "return Number(document.getElementById('count').dataset.matches)"
        wait(d, lambda d: js(d, count) == 4, message="the page to count the session's 4 events")
        # From here the page hears no live event: the next two reach the server only.
        js(d, "window.__rewind.connection.listeners.set('event', [])")
        send(4)
        send(5)
        acked(5)
        ws.send(json.dumps({"type": "end", "id": 2}))
    wait_until(lambda: not ctx.inspector.session(uuid=session)["live"], message="the session ended")
    wait(d, lambda d: js(d, count) == 6, message="the list to grow to the session's 6 events when it ends")
    wait(d, lambda d: js(d, "const e = window.__rewind.page.store.get(5); return e ? e.actionType : null") == "missed/add",
         message="event #5 read from the log")
    def drawn(d):
        rows = [r for r in dom_rows(d) if r["seq"] in (4, 5) and not r["loading"]]
        return rows if len(rows) == 2 else None
    rows = wait(d, drawn, message="rows #4 and #5 drawn")
    assert [r["type"] for r in rows] == ["missed/add", "missed/add"], rows
