#!/usr/bin/env python3
"""Measures the inspector page (not a test: nothing is asserted).

Usage: measure.py PATH_TO_REWIND_BINARY [--live-seconds 60] [--rate 1000] [--screenshot PATH]
                  [--web DIR] [--far-jumps 20]

Opens a 100,000-event session (imported) and reports, from timings the page takes itself with
performance.now() around the render (window.__rewindPerf):
  - click on a row → its state rendered (p50/p99 over ~200 clicks; clicks whose state had to come
    from the server, after a far scroll, are reported apart as `fetched`);
  - slider step (arrow key on the slider) → state rendered;
  - far slider jump (a click somewhere else on the slider, --far-jumps times) → state rendered,
    the state and the list's rows there asked of the server (the list drawn there with the state);
  - DOM node count and JS heap (performance.memory) before and after streaming the app at
    ~--rate events/s for --live-seconds with the live session open and following.
--web serves another checkout's page (a before/after with one binary, alternated). With --screenshot, saves the inspector (the app's session, state tree expanded, a diff visible)
at 1400x900.
"""
import argparse
import os
import random
import statistics
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

import harness
from harness import wait_until


def pct(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def summary(name, values):
    return f"{name:<22} n={len(values):<4} p50={pct(values, 50):6.2f} ms  p99={pct(values, 99):6.2f} ms  max={max(values or [0]):6.2f} ms"


def js(d, script, *args):
    return d.execute_script(script, *args)


def open_session(d, server, sid):
    d.get("about:blank")
    d.get(f"{server.url}#session={sid}")
    wait_until(lambda: js(d, "return window.__rewind && window.__rewind.page.current && window.__rewind.page.current.id") == sid)
    wait_until(lambda: js(d, "return document.getElementById('state-pane').dataset.seq") is not None)


def rows_loaded(d):
    return js(d, "return [...document.querySelectorAll('#list .row')].filter(r => !r.hidden && !r.classList.contains('loading')).length") > 10


def measure_clicks(d, rng, count=200):
    js(d, "document.getElementById('follow').checked = false; for (const k in window.__rewindPerf) window.__rewindPerf[k].length = 0")
    height = js(d, "return document.getElementById('list').scrollHeight")
    done = 0
    while done < count:
        # Every 20 clicks, a far scroll: the first click there needs the server.
        js(d, "document.getElementById('list').scrollTop = arguments[0]", rng.random() * height)
        wait_until(lambda: rows_loaded(d))
        rows = inside_list(d)
        for _ in range(20):
            row = rng.choice(rows)
            seq = int(row.get_attribute("data-seq"))
            row.click()
            wait_until(lambda: js(d, "return document.getElementById('state-pane').dataset.seq") == str(seq))
            done += 1
    return js(d, "return {click: window.__rewindPerf.click, fetched: window.__rewindPerf.fetched}")


def inside_list(d):
    """The rows wholly inside the list's viewport (a click on them lands on them)."""
    box = d.find_element(By.ID, "list").rect
    return [r for r in d.find_elements(By.CSS_SELECTOR, "#list .row:not([hidden])")
            if r.rect["y"] >= box["y"] and r.rect["y"] + r.rect["height"] <= box["y"] + box["height"]]


def measure_slider(d, steps=200):
    js(d, "for (const k in window.__rewindPerf) window.__rewindPerf[k].length = 0")
    slider = d.find_element(By.ID, "slider")
    slider.click()
    start = int(slider.get_attribute("value"))
    for i in range(steps):
        slider.send_keys(Keys.ARROW_RIGHT if i % 50 < 40 else Keys.ARROW_LEFT)
    wait_until(lambda: len(js(d, "return window.__rewindPerf.slider")) + len(js(d, "return window.__rewindPerf.fetched")) >= steps - 1 or
               js(d, "return document.getElementById('state-pane').dataset.seq") == slider.get_attribute("value"))
    return js(d, "return {slider: window.__rewindPerf.slider, fetched: window.__rewindPerf.fetched, start: arguments[0]}", start)


def measure_far_slider(d, rng, jumps=20):
    """Clicks the slider at random places, each far from the last: every jump's state comes from
    the server (and the list's rows there too). One sample a jump, in `fetched`."""
    js(d, "for (const k in window.__rewindPerf) window.__rewindPerf[k].length = 0")
    slider = d.find_element(By.ID, "slider")
    width = slider.rect["width"]
    for jump in range(jumps):
        before = slider.get_attribute("value")
        # Each click on the other half of the slider from the last: a jump of 5 % of the session or more.
        offset = int((1 if jump % 2 else -1) * (0.05 + 0.4 * rng.random()) * width)
        ActionChains(d).move_to_element_with_offset(slider, offset, 0).click().perform()
        wait_until(lambda: slider.get_attribute("value") != before)
        wait_until(lambda: js(d, "return document.getElementById('state-pane').dataset.seq") == slider.get_attribute("value")
                   and not js(d, "return document.getElementById('state-pane').classList.contains('pending')"))
    return js(d, "return window.__rewindPerf.fetched")


def memory(d):
    return js(d, """return {nodes: document.getElementsByTagName('*').length,
        heapMB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null,
        rows: document.querySelectorAll('#list .row').length}""")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--live-seconds", type=float, default=60)
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--screenshot")
    parser.add_argument("--demo", action="store_true", help="stream `rewind demo --app images` instead of the stand-in")
    parser.add_argument("--web", default=os.path.join(harness.REPO, "web"),
                        help="the page's folder to serve (another checkout's, for a before/after); default this one's")
    parser.add_argument("--far-jumps", type=int, default=20, help="far slider jumps to measure (one sample each)")
    args = parser.parse_args()
    folder = harness.new_folder()
    big = os.path.join(folder, "big.jsonl")
    harness.gallery_jsonl(big, 100_000)
    harness.import_file(os.path.abspath(args.binary), os.path.join(folder, "rewind.db"), big, "big")
    server = harness.Server(os.path.abspath(args.binary), folder, web=os.path.abspath(args.web))
    app = driver = inspector = None
    try:
        inspector = harness.Inspector(server.port)
        sid = inspector.session(app="big")["id"]
        driver = harness.browser()
        d = driver
        rng = random.Random(1)
        open_session(d, server, sid)
        clicks = measure_clicks(d, rng)
        print(summary("click → state (local)", clicks["click"]))
        print(summary("click → state (fetched)", clicks["fetched"]))
        slider = measure_slider(d)
        print(summary("slider step → state", slider["slider"]))
        if slider["fetched"]:
            print(summary("slider (fetched)", slider["fetched"]))
        print(summary("far slider jump", measure_far_slider(d, rng, args.far_jumps)))

        # `rewind demo`'s users wait on a pretend back end (a few dozen actions a second at most):
        # the stand-in app makes the 1,000 a second this measures.
        app = harness.App(os.path.abspath(args.binary), server, os.path.join(folder, "state.log"), rate=args.rate, duration=0,
                          standin=not args.demo)
        live = wait_until(lambda: inspector.session(app="images"), timeout=30)
        open_session(d, server, live["id"])
        js(d, "window.gc && window.gc()")
        before = memory(d)
        first = inspector.session(uuid=live["uuid"])["lastSeq"] or 0
        started = time.monotonic()
        samples = []
        while time.monotonic() - started < args.live_seconds:
            time.sleep(5)   # a sampling interval, not a wait for a condition
            samples.append(memory(d))
        last = inspector.session(uuid=live["uuid"])["lastSeq"] or 0
        elapsed = time.monotonic() - started
        after = memory(d)
        shown = int(js(d, "return document.getElementById('count').dataset.matches"))
        print(f"live: {app.kind}, {last - first} events in {elapsed:.0f} s = {(last - first) / elapsed:.0f} events/s; page shows {shown} (server {last + 1})")
        print(f"before: {before['nodes']} DOM nodes, {before['rows']} rows, heap {before['heapMB']:.1f} MB")
        print(f"after:  {after['nodes']} DOM nodes, {after['rows']} rows, heap {after['heapMB']:.1f} MB "
              f"(max during: {max(s['nodes'] for s in samples)} nodes, {max(s['heapMB'] for s in samples):.1f} MB)")
        if args.screenshot:
            screenshot(d, args.screenshot)
    finally:
        harness.stop_all(driver and driver.quit, inspector and inspector.close, app and app.stop, server.stop)
        harness.remove_folder(folder)


def screenshot(d, path):
    """The live session, a few actions back, its state tree opened and its diff shown."""
    js(d, "document.getElementById('follow').checked = false")
    rows = inside_list(d)
    row = next((r for r in reversed(rows[:-4]) if "add" in r.text), rows[len(rows) // 2])
    row.click()
    wait_until(lambda: js(d, "return document.querySelectorAll('#diff .change').length") > 0)
    # Open the first closed container, then the last one inside it (the tree re-renders on each).
    for pick in (0, -1):
        toggles = [t for t in d.find_elements(By.CSS_SELECTOR, "#tree .node .toggle") if t.text == "▸"]
        if toggles:
            toggles[pick].click()
    d.save_screenshot(path)
    print(f"screenshot: {path}")


if __name__ == "__main__":
    main()
