"""Checks that reach through the server: commands to the app, the token, reconnecting."""
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import harness
from harness import wait_until
from pagekit import js, open_session, shown_seq, wait


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
