#!/usr/bin/env python3
"""Takes Docs/images/inspector.png: the inspector at 1400x900 with the four `rewind demo` apps
streaming, the users (login) app's session open at its latest login, the state tree opened at
/auth/token and the login's diff shown: the token it brought is `<redacted>` in both, as the
app's recording redacts it (and the password, by key, in the actions).

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
        # The latest login (the token it brought is redacted), else an action with a few changes.
        logins = inspector.ask(type="events", session=live["uuid"], typeGlob="users/authenticate/succeeded", **{"from": 0, "limit": 5_000})["events"]
        best = None
        if logins:
            best = logins[-1]["seq"]
            d.execute_script("window.__rewind.select(arguments[0], 'click', {center: true})", best)
            wait_until(lambda: d.execute_script("return document.getElementById('diff').dataset.to") == str(best))
            wait_until(lambda: d.execute_script("return document.getElementById('diff').dataset.local") == "false")
            first = "/auth/token"
        else:
            rows = d.execute_script("""const box = document.getElementById('list').getBoundingClientRect();
                return [...document.querySelectorAll('#list .row:not([hidden])')]
                  .filter(r => { const b = r.getBoundingClientRect(); return b.top >= box.top && b.bottom <= box.bottom; })
                  .map(r => [Number(r.dataset.seq), r.querySelector('.type').textContent]);""")
            rows = sorted(rows)[:-6]
            ordered = [seq for seq, kind in reversed(rows) if kind.endswith("/set")] + [seq for seq, _ in reversed(rows)]
            for seq in ordered:
                d.execute_script("window.__rewind.select(arguments[0], 'click')", seq)
                wait_until(lambda: d.execute_script("return document.getElementById('diff').dataset.to") == str(seq))
                kinds = d.execute_script("return [...document.querySelectorAll('#diff .change')].map(c => c.dataset.kind)")
                if kinds.count("changed") >= 3:
                    best = seq
                    break
            first = d.execute_script("const c = document.querySelector('#diff .change'); return c && c.dataset.path")
        # Open the tree down to that path, select it, and show its container.
        if first:
            d.execute_script("window.__rewind.tree.reveal(arguments[0])", first)
            d.execute_script("""const rows = [...document.querySelectorAll('#tree .node')];
                const i = rows.findIndex(n => n.classList.contains('selected'));
                if (i > 3) rows[i - 3].scrollIntoView({block: 'start'});""")
        d.execute_script("document.activeElement && document.activeElement.blur()")
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
        d.save_screenshot(args.output)
        print(f"{args.output}: session {live['id']} ({live['app']}) at #{best}, {os.path.getsize(args.output)} bytes"
              + ("" if best is not None else " (no login and no action with 3 changes found)"))
    finally:
        harness.stop_all(driver and driver.quit, inspector and inspector.close, app.stop, server.stop)
        harness.remove_folder(folder)


if __name__ == "__main__":
    main()
