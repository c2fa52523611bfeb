#!/usr/bin/env python3
"""Takes Docs/images/inspector.png: the inspector at 1400x900 with a `rewind demo` session open,
an action selected, its state tree opened and its diff shown.

Usage: screenshot.py PATH_TO_REWIND_BINARY [OUTPUT.png] [--app users]
"""
import argparse
import os

from selenium.webdriver.common.by import By

import harness
from harness import wait_until


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("output", nargs="?", default=os.path.join(harness.REPO, "Docs", "images", "inspector.png"))
    parser.add_argument("--app", default="users")
    parser.add_argument("--events", type=int, default=120)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    folder = harness.new_folder()
    server = harness.Server(binary, folder)
    app = harness.App(binary, server, os.path.join(folder, "state.log"), rate=20, duration=0, app="all")
    driver = inspector = None
    try:
        inspector = harness.Inspector(server.port)
        live = wait_until(lambda: inspector.session(app=args.app), timeout=30)
        wait_until(lambda: (inspector.session(uuid=live["uuid"])["lastSeq"] or 0) >= args.events, timeout=120)
        d = driver = harness.browser()
        d.get(f"{server.url}#session={live['id']}")
        wait_until(lambda: d.execute_script("return document.getElementById('state-pane').dataset.seq") is not None)
        d.find_element(By.ID, "follow").click()
        # An action with a few changed values, preferably a plain "…/set", a little above the
        # bottom of the list (rows are read first: a selection may scroll the list).
        rows = d.execute_script("""const box = document.getElementById('list').getBoundingClientRect();
            return [...document.querySelectorAll('#list .row:not([hidden])')]
              .filter(r => { const b = r.getBoundingClientRect(); return b.top >= box.top && b.bottom <= box.bottom; })
              .map(r => [Number(r.dataset.seq), r.querySelector('.type').textContent]);""")
        rows = sorted(rows)[:-6]
        ordered = [seq for seq, kind in reversed(rows) if kind.endswith("/set")] + [seq for seq, _ in reversed(rows)]
        best = None
        for seq in ordered:
            d.execute_script("window.__rewind.select(arguments[0], 'click')", seq)
            wait_until(lambda: d.execute_script("return document.getElementById('diff').dataset.to") == str(seq))
            kinds = d.execute_script("return [...document.querySelectorAll('#diff .change')].map(c => c.dataset.kind)")
            if kinds.count("changed") >= 3:
                best = seq
                break
        # Open the tree down to the first changed path, select it, and show its container.
        first = d.execute_script("const c = document.querySelector('#diff .change'); return c && c.dataset.path")
        if first:
            d.execute_script("window.__rewind.tree.reveal(arguments[0])", first)
            d.execute_script("""const rows = [...document.querySelectorAll('#tree .node')];
                const i = rows.findIndex(n => n.classList.contains('selected'));
                if (i > 3) rows[i - 3].scrollIntoView({block: 'start'});""")
        d.execute_script("document.activeElement && document.activeElement.blur()")
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        d.save_screenshot(args.output)
        print(f"{args.output}: session {live['id']} ({live['app']}), {os.path.getsize(args.output)} bytes" + ("" if best else " (no action with 3 changes found)"))
    finally:
        for part in (driver and driver.quit, inspector and inspector.close, app.stop, server.stop):
            if part:
                try:
                    part()
                except Exception:
                    pass


if __name__ == "__main__":
    main()
