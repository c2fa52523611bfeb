#!/usr/bin/env python3
"""The inspector page in headless Chromium against a real `rewind serve` and a real app.

Usage: test_inspector.py PATH_TO_REWIND_BINARY

Starts `rewind serve` (temporary log, the repository's web/), streams `rewind demo --app images`
to it, imports a 100,000-event session, a small one and one with a 1.7 MB state, then drives the
page (checks_page.py: live list, click → state and diff, slider, filters, scrolling 100,000
events, exports, keys, compare, blame, keys named __proto__, a big state; checks_app.py: jump/resume, dispatch and
replay reaching the app, a replay too large refused, the replay range after a sessions reload, the
token cookie, reconnecting under an open session; checks_sessions.py: the session list filtered by
tag, version and device and paged, a crashed session marked). Every check waits on a condition with a deadline. A failure saves a
screenshot and the browser console beside the test output (.build/browser-test/NAME.png, .log)
and prints the path. Prints `N passed, M failed`; exits 1 on any failure.
"""
import json
import os
import sys
import time
import traceback

import harness
from checks_app import (test_a_missed_live_event_is_read_from_the_log, test_branch_beside_its_original, test_copied_binary_serves_its_page, test_page_over_https, test_dispatch_and_replay_reach_the_app, test_jump_and_resume_reach_the_app, test_replay_range_after_sessions_reload,
                        test_replay_too_large_is_refused,
                        test_reconnects_and_resubscribes, test_token_through_the_cookie)
from checks_page import (BIG, test_big_session_scrolls, test_far_jump_moves_the_list_with_its_state, test_big_state_renders_lazily, test_blame_lists_the_changes,
                         test_click_shows_state_and_diff, test_compare_two_actions, test_export_downloads,
                         test_keyboard_moves_selection, test_live_events_appear, test_slider_moves_state,
                         test_action_pane, test_find_in_history, test_plot_a_number_across_the_session, test_this_should_be_gives_the_test_command, test_labels_placeholders_and_dispatch_example, test_layout_at_1280_and_1400,
                         test_rows_of_one_type_show_payload_hints, test_non_finite_numbers_are_shown_as_numbers, test_follow_keeps_state_and_diff_together, test_send_site_and_runs, test_special_keys_match_the_server, test_text_filter, test_type_filter)
from checks_sessions import test_a_crashed_session_is_marked, test_session_list_filters_and_pages, test_session_states_read_alike
from harness import wait_until

results = {"passed": 0, "failed": 0}


class Context:
    pass


TESTS = [test_live_events_appear, test_click_shows_state_and_diff, test_slider_moves_state, test_jump_and_resume_reach_the_app,
         test_dispatch_and_replay_reach_the_app, test_replay_too_large_is_refused, test_replay_range_after_sessions_reload,
         test_type_filter, test_text_filter, test_big_session_scrolls, test_far_jump_moves_the_list_with_its_state, test_export_downloads, test_keyboard_moves_selection, test_copied_binary_serves_its_page,
         test_compare_two_actions, test_blame_lists_the_changes, test_special_keys_match_the_server, test_big_state_renders_lazily, test_token_through_the_cookie, test_page_over_https,
         test_reconnects_and_resubscribes, test_send_site_and_runs, test_find_in_history, test_plot_a_number_across_the_session, test_this_should_be_gives_the_test_command, test_follow_keeps_state_and_diff_together, test_action_pane, test_branch_beside_its_original,
         test_labels_placeholders_and_dispatch_example, test_layout_at_1280_and_1400, test_rows_of_one_type_show_payload_hints, test_non_finite_numbers_are_shown_as_numbers,
         test_a_missed_live_event_is_read_from_the_log, test_session_states_read_alike, test_a_crashed_session_is_marked,
         # Last: the sessions it records push the demo's off the list's first page.
         test_session_list_filters_and_pages]


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
    ctx.server_binary = binary
    ctx.downloads = os.path.join(folder, "downloads")
    os.makedirs(ctx.downloads)
    big, small = os.path.join(folder, "big.jsonl"), os.path.join(folder, "small.jsonl")
    harness.gallery_jsonl(big, BIG)
    harness.gallery_jsonl(small, 2_000)
    ctx.server = ctx.app = ctx.driver = ctx.inspector = None
    try:
        # Imported before the server starts: a log takes one writer at a time, and it is one.
        db = os.path.join(folder, "rewind.db")
        proto, cart = os.path.join(folder, "proto.jsonl"), os.path.join(folder, "cart.jsonl")
        harness.proto_jsonl(proto)
        harness.cart_jsonl(cart)
        catalog = harness.catalog_jsonl(folder)
        for path, app in ((big, "big"), (small, "small"), (proto, "proto"), (cart, "cart"), (catalog, "catalog")):
            if path:
                harness.import_file(binary, db, path, app)
        ctx.server = harness.Server(binary, folder)
        # NaN and infinities as an app records them: strings, and the event's nonFinite.
        reading = lambda value, label="NaN": {"reading": {"value": value, "unit": "V"}, "label": label}
        ctx.nonfinite_uuid = harness.stream_session(ctx.server.port, "sensor", reading(1.5), [
            ({"type": "sensor/read", "value": "NaN"}, [{"op": "replace", "path": "/reading/value", "value": "NaN"}],
             reading("NaN"), ["/action/value", "/state/reading/value"]),
            ({"type": "sensor/read", "value": "Infinity"}, [{"op": "replace", "path": "/reading/value", "value": "Infinity"}],
             reading("Infinity"), ["/action/value", "/state/reading/value"]),
            ({"type": "sensor/read", "value": "-Infinity"}, [{"op": "replace", "path": "/reading/value", "value": "-Infinity"}],
             reading("-Infinity"), ["/action/value", "/state/reading/value"]),
            ({"type": "label/set", "label": "Infinity"}, [{"op": "replace", "path": "/label", "value": "Infinity"}],
             reading("-Infinity", "Infinity"), ["/state/reading/value"]),
        ])
        ctx.app = harness.App(binary, ctx.server, os.path.join(folder, "state.log"))
        print(f"app: {ctx.app.kind}", flush=True)
        ctx.inspector = harness.Inspector(ctx.server.port)
        ctx.live = wait_until(lambda: ctx.inspector.session(app="images"), message="the app's session")
        wait_until(lambda: (ctx.inspector.session(uuid=ctx.live["uuid"])["lastSeq"] or 0) >= 20, message="20 live events")
        ctx.big = ctx.inspector.session(app="big")
        ctx.small = ctx.inspector.session(app="small")
        ctx.proto = ctx.inspector.session(app="proto")
        ctx.catalog = ctx.inspector.session(app="catalog") if catalog else None
        ctx.cart = ctx.inspector.session(app="cart")
        ctx.nonfinite = ctx.inspector.session(uuid=ctx.nonfinite_uuid)
        ctx.driver = harness.browser(download_dir=ctx.downloads)
        # REWIND_BROWSER_ONLY=name,name runs only those checks (while working on them).
        only = [n for n in os.environ.get("REWIND_BROWSER_ONLY", "").split(",") if n]
        for test in TESTS:
            if not only or test.__name__ in only:
                run(ctx, test)
    except Exception as error:
        results["failed"] += 1
        print(f"FAIL setup: {error}", flush=True)
        traceback.print_exc()
    finally:
        harness.stop_all(ctx.driver and ctx.driver.quit, ctx.inspector and ctx.inspector.close, ctx.app and ctx.app.stop, ctx.server and ctx.server.stop)
        harness.remove_folder(folder, keep=results["failed"] > 0)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
