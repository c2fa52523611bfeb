#!/usr/bin/env python3
"""The inspector page in headless Chromium against a real `rewind serve` and a real app.

Usage: test_inspector.py PATH_TO_REWIND_BINARY

Starts `rewind serve` (temporary log, the repository's web/), streams `rewind demo --app images`
to it, imports a 100,000-event session, a small one and one with a 1.7 MB state, then drives the
page: live list, click → state and diff,
slider, jump/resume reaching the app, type and text filters, the big session's scrolling, and
the export download. Every check waits on a condition with a deadline. A failure saves a
screenshot and the browser console beside the test output (.build/browser-test/NAME.png, .log)
and prints the path. Prints `N passed, M failed`; exits 1 on any failure.
"""
import fnmatch
import json
import os
import sys
import time
import traceback

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

import harness
from harness import wait_until

BIG = 100_000
results = {"passed": 0, "failed": 0}


class Context:
    pass


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def wait(driver, predicate, timeout=20, message="condition"):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: predicate(d), message=message)


def open_session(ctx, session_id):
    d = ctx.driver
    d.get("about:blank")    # a fresh page for every check
    d.get(f"{ctx.server.url}#session={session_id}")
    wait(d, lambda d: js(d, "return window.__rewind && window.__rewind.page.current && window.__rewind.page.current.id") == session_id,
         message=f"session {session_id} open")
    wait(d, lambda d: js(d, "return document.getElementById('state-pane').dataset.seq") is not None, message="a state shown")


def dom_rows(driver):
    """The rows in the DOM that are drawn: seq, type, whether still loading."""
    return js(driver, """return [...document.querySelectorAll('#list .row')].filter(r => !r.hidden)
        .map(r => ({seq: Number(r.dataset.seq), type: r.querySelector('.type').textContent, loading: r.classList.contains('loading')}))""")


def shown_state(driver):
    """The state the page shows, read from its raw view."""
    driver.find_element(By.ID, "view-raw").click()
    text = driver.find_element(By.ID, "raw").text
    driver.find_element(By.ID, "view-tree").click()
    return json.loads(text)


def shown_seq(driver):
    value = js(driver, "return document.getElementById('state-pane').dataset.seq")
    return None if value is None else int(value)


# --- the checks ----------------------------------------------------------------------------

def test_live_events_appear(ctx):
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    for _ in range(2):
        # A seq the server has now must show up in the list by itself (follow is on).
        target = ctx.inspector.session(uuid=ctx.live["uuid"])["lastSeq"] + 3
        wait(d, lambda d: any(r["seq"] >= target and not r["loading"] for r in dom_rows(d)), message=f"live row #{target}")
    count = int(js(d, "return document.getElementById('count').dataset.matches"))
    assert count >= target + 1, f"count {count} behind seq {target}"


def test_click_shows_state_and_diff(ctx):
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    d.find_element(By.ID, "follow").click()          # stop following so the rows stay put
    wait(d, lambda d: len([r for r in dom_rows(d) if not r["loading"]]) > 10, message="rows loaded")
    for pick in (len(dom_rows(d)) // 2, 3):
        rows = d.find_elements(By.CSS_SELECTOR, "#list .row:not([hidden])")
        box = d.find_element(By.ID, "list").rect
        visible = [r for r in rows if r.rect["y"] >= box["y"] and r.rect["y"] + r.rect["height"] <= box["y"] + box["height"]
                   and int(r.get_attribute("data-seq")) > 0]
        row = visible[min(pick, len(visible) - 1)]
        seq = int(row.get_attribute("data-seq"))
        row.click()
        wait(d, lambda d: shown_seq(d) == seq, message=f"state of #{seq}")
        expected = ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=seq)["value"]
        assert shown_state(d) == expected, f"state #{seq} differs from the server's"
        wait(d, lambda d: js(d, "return document.getElementById('diff').dataset.to") == str(seq), message=f"diff of #{seq}")
        diff = ctx.inspector.ask(type="diff", session=ctx.live["uuid"], **{"from": seq - 1, "to": seq})
        shown = js(d, "return [...document.querySelectorAll('#diff .change')].map(c => c.dataset.path)")
        assert shown == [op["path"] for op in diff["patch"]], f"diff paths {shown} != server {diff['patch']}"
        # A changed value shows what the server's states hold before and after.
        before = ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=seq - 1)["value"]
        lines = js(d, """return [...document.querySelectorAll('#diff .change.changed')].map(c =>
            [c.dataset.path, c.querySelector('.before').textContent, c.querySelector('.after').textContent])""")
        for path, shown_before, shown_after in lines:
            for shown_value, state in ((shown_before, before), (shown_after, expected)):
                value = value_at(state, path)
                if isinstance(value, (str, int, bool)) and not isinstance(value, float):
                    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
                    assert len(text) > 190 or shown_value == text, f"{path}: shows {shown_value}, the server has {text}"


def test_slider_moves_state(ctx):
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    slider = d.find_element(By.ID, "slider")
    slider.click()
    slider.send_keys(Keys.HOME)
    wait(d, lambda d: shown_seq(d) == 0, message="state #0 after Home on the slider")
    assert shown_state(d) == ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=0)["value"]
    slider = d.find_element(By.ID, "slider")
    for _ in range(5):
        slider.send_keys(Keys.ARROW_RIGHT)
    wait(d, lambda d: shown_seq(d) == 5, message="state #5 after five steps")
    assert int(slider.get_attribute("value")) == 5
    assert shown_state(d) == ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=5)["value"]
    slider.send_keys(Keys.ARROW_LEFT)
    wait(d, lambda d: shown_seq(d) == 4, message="state #4 after a step back")
    assert shown_state(d) == ctx.inspector.ask(type="state", session=ctx.live["uuid"], seq=4)["value"]


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
    for field, value in (("replay-from", "1"), ("replay-to", "5"), ("replay-pace", "50")):
        d.find_element(By.ID, field).clear()
        d.find_element(By.ID, field).send_keys(value)
    before = len(ctx.app.lines())
    d.find_element(By.ID, "replay").click()
    # The app counts the actions it replayed: #1…#5 are five.
    wait(d, lambda d: "replayed 5 actions" in d.find_element(By.ID, "message").text, message="the app's answer to replay")
    wait_until(lambda: any(l["locked"] for l in ctx.app.lines()[before:]), message="the app's store locked by the replay")
    d.find_element(By.ID, "resume").click()
    wait(d, lambda d: "back to its live state" in d.find_element(By.ID, "message").text, message="resumed")


def filtered(ctx, type_glob="", text=""):
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    d.find_element(By.ID, "type-filter").send_keys(type_glob)
    d.find_element(By.ID, "text-filter").send_keys(text)
    wait(d, lambda d: js(d, "const c = document.getElementById('count'); return c.dataset.done === 'true' && c.textContent.includes('match')"),
         message="the filter scan to finish")
    wait(d, lambda d: dom_rows(d) and not any(r["loading"] for r in dom_rows(d)), message="filtered rows loaded")
    return int(js(d, "return document.getElementById('count').dataset.matches")), dom_rows(d)


def cli_count(ctx, *args):
    out = ctx.server.cli("log", str(ctx.small["id"]), "--json", *args).decode()
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_type_filter(ctx):
    count, rows = filtered(ctx, type_glob="images/*")
    expected = cli_count(ctx, "--type", "images/*")
    assert count == len(expected), f"page says {count} match, rewind log --type says {len(expected)}"
    assert count < ctx.small["eventCount"]
    assert all(fnmatch.fnmatchcase(r["type"], "images/*") for r in rows), rows
    # The drawn rows are a run of consecutive matches (wherever the list is scrolled).
    seqs = [e["seq"] for e in expected]
    start = seqs.index(rows[0]["seq"])
    assert [r["seq"] for r in rows] == seqs[start:start + len(rows)], rows


def test_text_filter(ctx):
    count, rows = filtered(ctx, text="user7")
    expected = cli_count(ctx, "--grep", "user7")
    assert 0 < count == len(expected), f"page says {count} match, rewind log --grep says {len(expected)}"
    wanted = {e["seq"] for e in expected}
    assert all(r["seq"] in wanted for r in rows), rows


def test_big_session_scrolls(ctx):
    d = ctx.driver
    open_session(ctx, ctx.big["id"])
    d.find_element(By.ID, "follow").click()
    js(d, "document.getElementById('list').scrollTop = 0")
    wait(d, lambda d: any(r["seq"] == 0 and not r["loading"] for r in dom_rows(d)), message="the first rows")
    height = js(d, "return document.getElementById('list').scrollHeight")
    most = 0
    for step in range(1, 21):
        js(d, "document.getElementById('list').scrollTop = arguments[0]", height * step / 20)
        first = int(height * step / 20 / 24)
        wait(d, lambda d: any(r["seq"] >= min(first, BIG - 30) and not r["loading"] for r in dom_rows(d)), message=f"rows near {first}")
        most = max(most, js(d, "return document.querySelectorAll('#list .row').length"))
    assert most < 120, f"{most} rows in the DOM"
    d.find_element(By.ID, "list").click()
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait(d, lambda d: shown_seq(d) == BIG, message=f"the last seq {BIG} selected")
    wait(d, lambda d: any(r["seq"] == BIG and not r["loading"] for r in dom_rows(d)), message="the last row drawn")
    assert shown_state(d) == ctx.inspector.ask(type="state", session=ctx.big["uuid"], seq=BIG)["value"]
    nodes = js(d, "return document.getElementsByTagName('*').length")
    assert nodes < 3000, f"{nodes} DOM nodes"


def test_export_downloads(ctx):
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    for link, fmt, name in (("export-jsonl", "jsonl", f"rewind-session-{ctx.small['id']}.jsonl"),
                            ("export-redux", "redux-devtools", f"rewind-session-{ctx.small['id']}.redux-devtools.json")):
        path = os.path.join(ctx.downloads, name)
        if os.path.exists(path):
            os.remove(path)
        d.find_element(By.ID, link).click()
        wait_until(lambda: os.path.exists(path) and not os.path.exists(path + ".crdownload"), message=f"{name} downloaded")
        expected = ctx.server.cli("export", str(ctx.small["id"]), "--format", fmt)
        wait_until(lambda: os.path.getsize(path) == len(expected), message=f"{name} complete")
        with open(path, "rb") as f:
            assert f.read() == expected, f"{name} differs from rewind export"


def test_compare_two_actions(ctx):
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    d.find_element(By.ID, "follow").click()
    press(d, Keys.HOME)
    press(d, *(["j"] * 3))
    wait(d, lambda d: shown_seq(d) == 3, message="#3 selected")
    d.find_element(By.ID, "compare").click()
    press(d, *(["j"] * 9))
    wait(d, lambda d: shown_seq(d) == 12, message="#12 selected")
    wait(d, lambda d: js(d, "const e = document.getElementById('diff'); return e.dataset.from + '→' + e.dataset.to") == "3→12",
         message="the diff from #3 to #12")
    diff = ctx.inspector.ask(type="diff", session=ctx.small["uuid"], **{"from": 3, "to": 12})
    shown = js(d, "return [...document.querySelectorAll('#diff .change')].map(c => c.dataset.path)")
    assert shown == [op["path"] for op in diff["patch"]] and len(shown) > 1, f"{shown} != {diff['patch']}"
    press(d, Keys.ESCAPE)
    wait(d, lambda d: js(d, "const e = document.getElementById('diff'); return e.dataset.from + '→' + e.dataset.to") == "11→12",
         message="Esc goes back to the selected action's own diff")


def press(driver, *keys):
    for key in keys:
        ActionChains(driver).send_keys(key).perform()


def test_keyboard_moves_selection(ctx):
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    d.find_element(By.ID, "follow").click()
    press(d, Keys.HOME)
    wait(d, lambda d: shown_seq(d) == 0, message="Home selects #0")
    press(d, "j", "j", Keys.ARROW_DOWN)
    wait(d, lambda d: shown_seq(d) == 3, message="j j ↓ selects #3")
    press(d, "k")
    wait(d, lambda d: shown_seq(d) == 2, message="k selects #2")
    assert js(d, "return document.querySelector('#list .row.selected').dataset.seq") == "2"
    assert shown_state(d) == ctx.inspector.ask(type="state", session=ctx.small["uuid"], seq=2)["value"]
    press(d, Keys.END)
    wait(d, lambda d: shown_seq(d) == ctx.small["lastSeq"], message="End selects the last action")


def test_blame_lists_the_changes(ctx):
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, '#tree .node[data-pointer="/likes"]'), message="the /likes node")
    d.find_element(By.CSS_SELECTOR, '#tree .node[data-pointer="/likes"] .key').click()
    wait(d, lambda d: d.find_element(By.ID, "selected-path").text == "/likes", message="/likes selected")
    d.find_element(By.ID, "blame").click()
    wait(d, lambda d: js(d, "return document.getElementById('blame-view').dataset.path") == "/likes", message="blame of /likes")
    shown = [int(x) for x in js(d, "return [...document.querySelectorAll('#blame-view .change')].map(c => c.dataset.seq)")]
    expected = [e["seq"] for e in ctx.inspector.ask(type="blame", session=ctx.small["uuid"], path="/likes")["entries"]]
    assert shown == expected and len(shown) > 10, f"blame {shown[:5]}… != server {expected[:5]}…"
    d.find_elements(By.CSS_SELECTOR, "#blame-view .change")[3].click()
    wait(d, lambda d: shown_seq(d) == expected[3], message=f"a click on a blame entry selects #{expected[3]}")


def test_big_state_renders_lazily(ctx):
    if ctx.catalog is None:
        raise AssertionError(f"the shared test data is missing: looked for {harness.CATALOG_PLACES}")
    d = ctx.driver
    open_session(ctx, ctx.catalog["id"])
    wait(d, lambda d: shown_seq(d) == 1, message="the catalog's last state")
    expected = ctx.inspector.ask(type="state", session=ctx.catalog["uuid"], seq=1)["value"]
    top = js(d, "return [...document.querySelectorAll('#tree .node')].map(n => n.dataset.pointer)")
    assert top == [""] + ["/" + k.replace("~", "~0").replace("/", "~1") for k in expected], top[:5]
    d.find_element(By.CSS_SELECTOR, '#tree .node[data-pointer="/events"] .toggle').click()
    # Only the opened container's children are drawn, none of theirs.
    want = 1 + len(expected) + len(expected["events"])
    wait(d, lambda d: js(d, "return document.querySelectorAll('#tree .node').length") == want, message=f"{want} tree rows once /events is open")
    d.find_element(By.ID, "tree-search").send_keys("Bach")
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#search-results .result"), message="search results")
    first = d.find_element(By.CSS_SELECTOR, "#search-results .result")
    pointer = first.get_attribute("data-pointer")
    first.click()
    wait(d, lambda d: js(d, "const n = document.querySelector('#tree .node.selected'); return n && n.dataset.pointer") == pointer,
         message=f"the search result {pointer} revealed")
    assert "bach" in json.dumps(value_at(expected, pointer)).lower() + pointer.lower()


def value_at(doc, pointer):
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def test_token_through_the_cookie(ctx):
    """A server with a token: the page opened with ?token= connects and downloads with its cookie."""
    d = ctx.driver
    folder = os.path.join(ctx.folder, "token")
    os.makedirs(folder)
    server = harness.Server(ctx.server.binary, folder, extra=("--token", "s3cret-token"))
    try:
        small = os.path.join(ctx.folder, "small.jsonl")
        server.cli("import", small, "--app", "small")
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


def test_reconnects_and_resubscribes(ctx):
    """Last: restarts the server on the same port and log, and a new app streams to it."""
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    wait(d, lambda d: d.find_element(By.ID, "status").text == "connected", message="connected")
    ctx.app.stop()
    ctx.inspector.close()
    ctx.server.stop()
    wait(d, lambda d: "reconnecting" in d.find_element(By.ID, "status").text, message="the page to notice")
    ctx.server = harness.Server(ctx.server.binary, ctx.folder, port=ctx.server.port)
    wait(d, lambda d: d.find_element(By.ID, "status").text == "connected", timeout=30, message="reconnected by itself")
    ctx.inspector = harness.Inspector(ctx.server.port)
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


TESTS = [test_live_events_appear, test_click_shows_state_and_diff, test_slider_moves_state, test_jump_and_resume_reach_the_app,
         test_dispatch_and_replay_reach_the_app,
         test_type_filter, test_text_filter, test_big_session_scrolls, test_export_downloads, test_keyboard_moves_selection,
         test_compare_two_actions, test_blame_lists_the_changes, test_big_state_renders_lazily, test_token_through_the_cookie,
         test_reconnects_and_resubscribes]


def run(ctx, test):
    name = test.__name__
    started = time.monotonic()
    ctx.console = []
    try:
        ctx.driver.get_log("browser")      # start with an empty console
        test(ctx)
        # A script error in the page fails the check even when what it looked at was right
        # (failed connections while the server restarts, and the 401 of a page without its token,
        # are expected, and not script errors).
        ctx.console = ctx.driver.get_log("browser")
        errors = [e["message"] for e in ctx.console
                  if e["level"] == "SEVERE" and not any(n in e["message"] for n in ("WebSocket", "net::", "Failed to load resource"))]
        assert not errors, f"the page logged errors: {errors[:3]}"
        results["passed"] += 1
        print(f"ok   {name} ({time.monotonic() - started:.1f}s)", flush=True)
    except Exception as error:  # any failure is this test's, reported with its evidence
        results["failed"] += 1
        os.makedirs(harness.OUT, exist_ok=True)
        shot = os.path.join(harness.OUT, f"{name}.png")
        log = os.path.join(harness.OUT, f"{name}.console.log")
        try:
            ctx.driver.save_screenshot(shot)
            with open(log, "w") as f:
                for entry in ctx.console + ctx.driver.get_log("browser"):
                    f.write(json.dumps(entry) + "\n")
        except Exception as saving:
            shot = f"(no screenshot: {saving})"
        print(f"FAIL {name}: {error}\n     screenshot: {shot}\n     console: {log}", flush=True)
        traceback.print_exc()


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "rewind")
    folder = harness.new_folder()
    ctx = Context()
    ctx.folder = folder
    ctx.downloads = os.path.join(folder, "downloads")
    os.makedirs(ctx.downloads)
    big, small = os.path.join(folder, "big.jsonl"), os.path.join(folder, "small.jsonl")
    harness.gallery_jsonl(big, BIG)
    harness.gallery_jsonl(small, 2_000)
    ctx.server = harness.Server(binary, folder)
    ctx.app = ctx.driver = ctx.inspector = None
    try:
        # Imports go through the server's own log while it runs, like a user's would.
        ctx.server.cli("import", big, "--app", "big")
        ctx.server.cli("import", small, "--app", "small")
        catalog = harness.catalog_jsonl(folder)
        if catalog:
            ctx.server.cli("import", catalog, "--app", "catalog")
        ctx.app = harness.App(binary, ctx.server, os.path.join(folder, "state.log"))
        print(f"app: {ctx.app.kind}", flush=True)
        ctx.inspector = harness.Inspector(ctx.server.port)
        ctx.live = wait_until(lambda: ctx.inspector.session(app="images"), message="the app's session")
        wait_until(lambda: (ctx.inspector.session(uuid=ctx.live["uuid"])["lastSeq"] or 0) >= 20, message="20 live events")
        ctx.big = ctx.inspector.session(app="big")
        ctx.small = ctx.inspector.session(app="small")
        ctx.catalog = ctx.inspector.session(app="catalog") if catalog else None
        ctx.driver = harness.browser(download_dir=ctx.downloads)
        for test in TESTS:
            run(ctx, test)
    except Exception as error:
        results["failed"] += 1
        print(f"FAIL setup: {error}", flush=True)
        traceback.print_exc()
    finally:
        for part in (ctx.driver and ctx.driver.quit, ctx.inspector and ctx.inspector.close, ctx.app and ctx.app.stop, ctx.server.stop):
            if part:
                try:
                    part()
                except Exception:
                    pass
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
