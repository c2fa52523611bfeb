"""Checks of the page itself: the list, the state, the diff, filters, big sessions, exports."""
import fnmatch
import json
import os
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

import harness
from harness import wait_until
from pagekit import dom_rows, js, open_session, press, shown_seq, shown_state, value_at, wait

BIG = 100_000


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
        wait(d, lambda d: js(d, "return document.getElementById('diff').dataset.to") == str(seq)
             and js(d, "return document.getElementById('diff').dataset.local") == "false", message=f"the server's diff of #{seq}")
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


def test_far_jump_moves_the_list_with_its_state(ctx):
    """A slider jump whose state the page must ask the server for moves the list when the state
    arrives, in the same task, not before (the state's reply would wait for the list's frame);
    a state that does not come lets the list move alone after a moment and dims the old state."""
    d = ctx.driver
    open_session(ctx, ctx.big["id"])
    wait(d, lambda d: shown_seq(d) == BIG, message=f"the last seq {BIG} shown")
    d.find_element(By.ID, "follow").click()  # not following: the list stays where it is put
    assert not d.find_element(By.ID, "follow").is_selected()
    # Run after the page's own handlers: what the list drew when the page handled the input, and
    # which selected row is drawn at the moment the state pane changes seq.
    js(d, """
        const list = document.getElementById('list'), slider = document.getElementById('slider');
        const selectedRows = () => [...list.querySelectorAll('.row.selected')].filter(r => !r.hidden).map(r => Number(r.dataset.seq));
        window.__far = {input: [], shown: []};
        slider.addEventListener('input', () => window.__far.input.push({target: Number(slider.value), selected: selectedRows()}));
        new MutationObserver(() => window.__far.shown.push({seq: Number(document.getElementById('state-pane').dataset.seq), selected: selectedRows()}))
            .observe(document.getElementById('state-pane'), {attributes: true, attributeFilter: ['data-seq']});
    """)
    fetched = len(js(d, "return window.__rewindPerf.fetched"))
    slider = d.find_element(By.ID, "slider")
    width = slider.rect["width"]
    ActionChains(d).move_to_element_with_offset(slider, int(-0.4 * width), 0).click().perform()
    wait(d, lambda d: js(d, "return window.__far.input.length") == 1, message="the slider's input")
    target = js(d, "return window.__far.input[0].target")
    assert target < BIG // 2, f"the click went to #{target}"
    wait(d, lambda d: shown_seq(d) == target, message=f"state #{target} shown")
    assert len(js(d, "return window.__rewindPerf.fetched")) == fetched + 1, "the state did not come from the server"
    assert js(d, "return window.__far.input[0].selected") == [], "the list moved before its state arrived"
    shown = js(d, "return window.__far.shown")
    assert shown[-1] == {"seq": target, "selected": [target]}, f"the list had not moved when the state was shown: {shown}"
    assert shown_state(d) == ctx.inspector.ask(type="state", session=ctx.big["uuid"], seq=target)["value"]
    # The server's state replies held back: the list goes alone, the old state dims.
    js(d, """
        const c = window.__rewind.connection, request = c.request.bind(c);
        c.request = (body) => body.type === 'state' ? new Promise(() => {}) : request(body);
    """)
    slider = d.find_element(By.ID, "slider")
    ActionChains(d).move_to_element_with_offset(slider, int(0.4 * width), 0).click().perform()
    wait(d, lambda d: js(d, "return window.__far.input.length") == 2, message="the second input")
    held = js(d, "return window.__far.input[1].target")
    assert held > BIG // 2, f"the click went to #{held}"
    wait(d, lambda d: any(r["seq"] == held for r in dom_rows(d)), message=f"the list at #{held} without its state")
    wait(d, lambda d: js(d, "return document.getElementById('state-pane').classList.contains('pending')"), message="the old state dimmed")
    assert shown_seq(d) == target
    assert f"#{held} (loading" in d.find_element(By.ID, "state-title").text


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
    # Where the value appeared (seq 0 here) reads `+ value`, as `rewind blame` prints it, not
    # `null → value` (issue 41).
    first = ctx.inspector.ask(type="blame", session=ctx.small["uuid"], path="/likes")["entries"][0]
    assert first["change"] == "added", first
    text = js(d, "return document.querySelector('#blame-view .change .values').textContent")
    assert text.startswith("+ ") and "→" not in text and "null" not in text, text
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


def test_special_keys_match_the_server(ctx):
    """States with `__proto__`, `constructor` and `hasOwnProperty` keys, stepped with the keyboard
    both ways (the page applies patches, then inverses): the shown state is the server's and the
    CLI's at every step, and nothing leaked into Object.prototype."""
    d = ctx.driver
    session = ctx.proto
    open_session(ctx, session["id"])
    d.find_element(By.ID, "follow").click()
    press(d, Keys.HOME)
    last = session["lastSeq"]
    assert last >= 5, f"the imported session has {last + 1} events"

    def check(seq):
        wait(d, lambda d: shown_seq(d) == seq, message=f"#{seq} shown")
        expected = ctx.inspector.ask(type="state", session=session["uuid"], seq=seq)["value"]
        cli = json.loads(ctx.server.cli("state", f"{session['id']}@{seq}", "--json"))["value"]
        assert expected == cli, f"#{seq}: the server and the CLI disagree"
        shown = shown_state(d)
        assert shown == expected, f"#{seq}: the page shows {shown}, the server has {expected}"
        # The tree lists the same top-level keys (drawn from the page's own copy of the state).
        top = js(d, "return [...document.querySelectorAll('#tree .node')].map(n => n.dataset.pointer).filter(p => p && p.lastIndexOf('/') === 0)")
        assert sorted(top) == sorted("/" + k.replace("~", "~0").replace("/", "~1") for k in expected), f"#{seq}: tree keys {top}"

    for seq in range(0, last + 1):
        check(seq)
        if seq < last:
            press(d, "j")
    for seq in range(last - 1, -1, -1):
        press(d, "k")
        check(seq)
    leaked = js(d, "const o = {}; return ['x', 'y', 'polluted', 'prototype'].filter(k => k in o)")
    assert leaked == [], f"Object.prototype gained {leaked}"


def test_send_site_and_runs(ctx):
    """The state pane names where the app sent the selected action, as the server stored it;
    the sessions of one process (a second `rewind demo` with two apps) are listed together."""
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    d.find_element(By.ID, "follow").click()
    wait(d, lambda d: len([r for r in dom_rows(d) if not r["loading"] and r["seq"] > 0]) > 3, message="rows loaded")
    rows = d.find_elements(By.CSS_SELECTOR, "#list .row:not([hidden]):not(.loading)")
    box = d.find_element(By.ID, "list").rect
    visible = [r for r in rows if r.rect["y"] >= box["y"] and r.rect["y"] + r.rect["height"] <= box["y"] + box["height"]
               and int(r.get_attribute("data-seq")) > 0]
    row = visible[len(visible) // 2]
    seq = int(row.get_attribute("data-seq"))
    row.click()
    wait(d, lambda d: js(d, "return document.getElementById('state-source').dataset.seq") == str(seq), message=f"the source of #{seq}")
    event = ctx.inspector.ask(type="events", session=ctx.live["uuid"], **{"from": seq, "limit": 1})["events"][0]
    site = event["site"]
    assert site["file"] == "RewindDemo/ImagesIntent.swift", f"the demo's send site: {site}"
    shown = d.find_element(By.ID, "state-source").text
    assert shown == f"sent at {site['file']}:{site['line']} {site['function']}", f"shows {shown!r} for {site}"

    other = harness.App(ctx.server_binary, ctx.server, os.path.join(ctx.folder, "run.log"), app="users,breweries", duration=60)
    try:
        pair = wait_until(lambda: (lambda p: p if len(p) == 2 else None)(
            [s for s in ctx.inspector.ask(type="sessions")["sessions"] if s["app"].lower() in ("users demo", "breweries demo") and s["live"]]),
            message="both sessions of the second demo")
        assert pair[0]["run"] and pair[0]["run"] == pair[1]["run"], f"one process, one run: {pair}"
        assert pair[0]["run"] != ctx.inspector.session(uuid=ctx.live["uuid"])["run"], "another process, another run"
        open_session(ctx, ctx.live["id"])
        group = f"#sessions .run-group[data-run='{pair[0]['run']}']"
        wait(d, lambda d: js(d, f"return [...document.querySelectorAll(\"{group} .session\")].map(e => Number(e.dataset.id))")
             == sorted((s["id"] for s in pair), reverse=True), message="the run's two sessions listed together")
        head = js(d, f"return document.querySelector(\"{group} .run-head span\").textContent")
        assert head == f"run {pair[0]['run'][:8]} · 2 stores", head

        # The run's actions merged in time order, each as the server stored it.
        # The list re-renders as the live sessions grow: find and click in one script.
        js(d, f"document.querySelector(\"{group} .run-merge\").click()")
        wait(d, lambda d: js(d, "return document.getElementById('run-view').dataset.state") == "ready", message="the merged run view")
        rows = js(d, """return [...document.querySelectorAll('#run-view .run-row')].map(r =>
            ({session: Number(r.dataset.session), seq: Number(r.dataset.seq), at: Number(r.dataset.at),
              type: r.querySelector('.type').textContent, site: r.querySelector('.site').textContent}))""")
        ids = {s["id"]: s for s in pair}
        assert {r["session"] for r in rows} == set(ids), f"both stores in the merged list: {sorted({r['session'] for r in rows})}"
        assert all(a["at"] <= b["at"] for a, b in zip(rows, rows[1:])), "merged rows out of time order"
        for row in rows[:5] + rows[-5:]:
            stored = ctx.inspector.ask(type="events", session=ids[row["session"]]["uuid"], **{"from": row["seq"], "limit": 1})["events"][0]
            assert stored["actionType"] == row["type"] and abs(stored["at"] - row["at"]) < 1e-6, f"{row} vs {stored}"
            site = stored.get("site")
            assert row["site"] == (f"{site['file']}:{site['line']}" if site else ""), f"{row} vs {site}"
        pick = rows[len(rows) // 2]
        js(d, f"document.querySelector(\"#run-view .run-row[data-session='{pick['session']}'][data-seq='{pick['seq']}']\").click()")
        wait(d, lambda d: js(d, "return window.__rewind.page.current.id") == pick["session"]
             and js(d, "return document.getElementById('state-pane').dataset.seq") == str(pick["seq"]),
             message=f"session {pick['session']} open at #{pick['seq']}")
        assert js(d, "return document.getElementById('run-view').hidden"), "the run view closes on a click"
    finally:
        other.stop()


def test_find_in_history(ctx):
    """"Find in history" with the selected path filled in: the hits the server finds, each a click
    away; a value that is not JSON is said, not sent."""
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, '#tree .node[data-pointer="/filter"]'), message="the /filter node")
    d.find_element(By.CSS_SELECTOR, '#tree .node[data-pointer="/filter"] .key').click()
    wait(d, lambda d: d.find_element(By.ID, "selected-path").text == "/filter", message="/filter selected")
    d.find_element(By.ID, "find-open").click()
    assert d.find_element(By.ID, "find-path").get_attribute("value") == "/filter", "the selected path is filled in"
    d.find_element(By.ID, "find-value").send_keys("liked")
    d.find_element(By.ID, "find-run").click()
    wait(d, lambda d: "not JSON" in d.find_element(By.ID, "message").text, message="a value that is not JSON is refused")
    value = d.find_element(By.ID, "find-value")
    value.clear()
    value.send_keys('"liked"')
    d.find_element(By.ID, "find-all").click()
    d.find_element(By.ID, "find-run").click()
    wait(d, lambda d: js(d, "return document.getElementById('find-view').dataset.state") == "ready", message="the hits")
    shown = js(d, "return [...document.querySelectorAll('#find-view .find-hit')].map(h => [Number(h.dataset.seq), h.dataset.event])")
    reply = ctx.inspector.ask(type="find", session=ctx.small["uuid"], path="/filter", **{"is": "liked", "all": True})
    expected = [[h["seq"], h["event"]] for h in reply["hits"]]
    assert shown == expected and len(shown) > 20, f"find {shown[:6]}… != server {expected[:6]}…"
    assert {e for _, e in shown} == {"starts", "stops"}
    # A condition without a value: every change of /likes.
    Select(d.find_element(By.ID, "find-condition")).select_by_value("changed")
    path = d.find_element(By.ID, "find-path")
    path.clear()
    path.send_keys("/likes")
    d.find_element(By.ID, "find-run").click()
    wait(d, lambda d: js(d, "return document.getElementById('find-view').dataset.state") == "ready"
         and js(d, "return document.querySelector('#find-view .find-hit').dataset.event") == "changed", message="the changes of /likes")
    changes = ctx.inspector.ask(type="find", session=ctx.small["uuid"], path="/likes", changed=True)["hits"]
    count = int(js(d, "return document.getElementById('find-view').dataset.count"))
    assert count == len(changes) == 500, f"{count} changes shown, the server has {len(changes)}"
    pick = changes[7]["seq"]
    js(d, f"document.querySelector('#find-view .find-hit[data-seq=\"{pick}\"]').click()")
    wait(d, lambda d: shown_seq(d) == pick, message=f"a click on a hit selects #{pick}")


def test_follow_keeps_state_and_diff_together(ctx):
    """Following a session streamed at 200 events a second, the state pane and the diff pane
    name the same seq at every moment looked at, and the shown diff is the server's."""
    import random
    d = ctx.driver
    app = harness.App(ctx.server_binary, ctx.server, os.path.join(ctx.folder, "follow.log"), rate=200, duration=40,
                      app="follow", standin=True)
    try:
        session = wait_until(lambda: ctx.inspector.session(app="follow"), message="the stand-in's session")
        open_session(ctx, session["id"])
        assert d.find_element(By.ID, "follow").is_selected()
        rng = random.Random(16)
        seen = []
        for _ in range(120):
            time.sleep(rng.uniform(0.005, 0.06))
            state, diff = js(d, "return [document.getElementById('state-pane').dataset.seq, document.getElementById('diff').dataset.to]")
            assert state == diff, f"the state pane shows #{state}, the diff pane #{diff}"
            seen.append(int(state))
        assert seen[-1] - seen[0] > 200, f"the page did not follow: #{seen[0]} … #{seen[-1]}"
        # Stop following; the diff shown for the selected action is the server's.
        d.find_element(By.ID, "follow").click()
        seq = int(js(d, "return document.getElementById('state-pane').dataset.seq"))
        wait(d, lambda d: js(d, "return document.getElementById('diff').dataset.local") == "false"
             and js(d, "return document.getElementById('diff').dataset.to") == str(seq), message=f"the server's diff of #{seq}")
        diff = ctx.inspector.ask(type="diff", session=session["uuid"], **{"from": seq - 1, "to": seq})
        paths = js(d, "return [...document.querySelectorAll('#diff .change')].map(c => c.dataset.path)")
        assert paths == [op["path"] for op in diff["patch"]], f"#{seq}: {paths} != server {diff['patch']}"
    finally:
        app.stop()


def test_action_pane(ctx):
    """The Action tab: the selected action's payload as a tree and as raw JSON, its send site,
    duration and cause chain, each cause a click away."""
    d = ctx.driver
    open_session(ctx, ctx.live["id"])
    d.find_element(By.ID, "follow").click()
    # An action an effect sent: the answer to a load, caused by the appear before it.
    page = ctx.inspector.ask(type="events", session=ctx.live["uuid"], **{"from": 1, "limit": 200})["events"]
    caused = next(e for e in page if e.get("cause") is not None)
    js(d, f"window.__rewind.select({caused['seq']}, 'click', {{center: true}})")
    wait(d, lambda d: shown_seq(d) == caused["seq"], message=f"#{caused['seq']} selected")
    d.find_element(By.ID, "tab-action").click()
    wait(d, lambda d: js(d, "return document.getElementById('action-view').dataset.seq") == str(caused["seq"]), message="the action pane")
    head = d.find_element(By.ID, "action-head").text
    assert f"#{caused['seq']} · {caused['actionType']}" in head, head
    site = caused["site"]
    assert f"sent at {site['file']}:{site['line']} {site['function']}" in head, head
    assert "reducer " in head, head
    raw = json.loads(js(d, "return document.getElementById('action-raw').textContent"))
    assert raw == caused["action"], f"raw {raw} != server {caused['action']}"
    keys = js(d, "return [...document.querySelectorAll('#action-tree .node')].map(n => n.dataset.pointer)")
    assert "/type" in keys, keys
    wait(d, lambda d: js(d, "return document.getElementById('action-causes').dataset.chain") == str(caused["cause"]), message="the cause chain")
    js(d, "document.querySelector('#action-causes .cause-link').click()")
    wait(d, lambda d: shown_seq(d) == caused["cause"], message=f"a click on the cause selects #{caused['cause']}")
    wait(d, lambda d: "sent by the app" in d.find_element(By.ID, "action-causes").text, message="the cause was sent by the app")


PLACEHOLDERS_FIT = """
const c = document.createElement('canvas').getContext('2d');
return [...document.querySelectorAll('input[placeholder]')].filter(i => i.offsetParent !== null).map(i => {
  const cs = getComputedStyle(i);
  c.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  return {id: i.id, text: i.placeholder, need: c.measureText(i.placeholder).width,
          room: i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)};
});"""


def set_size(d, width, height):
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def test_labels_placeholders_and_dispatch_example(ctx):
    """The Action tab's payload root is labelled as the action (the state's as the state);
    every placeholder fits its box at 1280×800 and at 1400×900, the find box's too; Dispatch's
    shows the session's last action in the app's own shape (a Codable enum's here)."""
    d = ctx.driver
    open_session(ctx, ctx.cart["id"])
    js(d, "window.__rewind.select(2, 'click', {center: true})")
    wait(d, lambda d: shown_seq(d) == 2, message="#2 selected")
    root = "return document.querySelector('#%s .node[data-pointer=\"\"] .key').textContent"
    assert js(d, root % "tree") == "(state)", js(d, root % "tree")
    d.find_element(By.ID, "tab-action").click()
    wait(d, lambda d: js(d, "return document.getElementById('action-view').dataset.seq") == "2", message="the action pane")
    assert js(d, root % "action-tree") == "(action)", js(d, root % "action-tree")
    keys = js(d, "return [...document.querySelectorAll('#action-tree .node')].map(n => n.dataset.pointer)")
    assert "/add" in keys, keys

    # The cart's last action is {"checkout":{}}: Dispatch's example is in that shape, not Redux's.
    last = ctx.inspector.ask(type="events", session=ctx.cart["uuid"], **{"from": ctx.cart["lastSeq"], "limit": 1})["events"][0]["action"]
    assert last == {"checkout": {}}, last
    wait(d, lambda d: d.find_element(By.ID, "dispatch-text").get_attribute("placeholder") == 'e.g. {"checkout":{}}',
         message="the dispatch example")
    # A long last action is cut to stay readable, whole in the title.
    open_session(ctx, ctx.small["id"])
    small_last = ctx.inspector.ask(type="events", session=ctx.small["uuid"], **{"from": ctx.small["lastSeq"], "limit": 1})["events"][0]["action"]
    wait(d, lambda d: d.find_element(By.ID, "dispatch-text").get_attribute("title").endswith(json.dumps(small_last, separators=(",", ":"))),
         message="the small session's last action as the example")

    # After the page's Replay the session's newest event is Rewind's own mark: the example is
    # the app's last action before it, never the mark (issue 41). The page's own function, in
    # the page: a mark, a branch's left-out action, an app action.
    found = d.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/js/controls.js').then((m) => done([
          m.appAction({actionType: '@@rewind/replayed', action: {type: '@@rewind/replayed', from: 1, to: 3}}) ?? null,
          m.appAction({actionType: '@@rewind/skipped', action: {type: '@@rewind/skipped', action: {add: {_0: 3}}}}),
          m.appAction({actionType: 'checkout', action: {checkout: {}}}),
        ]));
    """)
    assert found == [None, {"add": {"_0": 3}}, {"checkout": {}}], found

    try:
        for width, height in ((1280, 800), (1400, 900)):
            set_size(d, width, height)
            open_session(ctx, ctx.live["id"])
            d.find_element(By.CSS_SELECTOR, '#tree .node[data-pointer=""] .key').click()
            d.find_element(By.ID, "find-open").click()
            wait(d, lambda d: not d.find_element(By.ID, "find-box").get_attribute("hidden"), message="the find box")
            boxes = js(d, PLACEHOLDERS_FIT)
            ids = {b["id"] for b in boxes}
            assert {"type-filter", "text-filter", "tree-search", "find-path", "find-value", "dispatch-text"} <= ids, ids
            cut = [b for b in boxes if b["need"] > b["room"] + 0.5]
            assert not cut, f"at {width}×{height} these placeholders do not fit: {cut}"
    finally:
        set_size(d, 1400, 900)


def test_rows_of_one_type_show_payload_hints(ctx):
    """Six `add` rows (a Codable enum's `{"add":{"productID":N}}`) each show their payload."""
    d = ctx.driver
    open_session(ctx, ctx.cart["id"])
    wait(d, lambda d: len([r for r in dom_rows(d) if not r["loading"]]) >= 8, message="the cart's rows")
    rows = js(d, """return [...document.querySelectorAll('#list .row')].filter(r => !r.hidden)
        .map(r => { const h = r.querySelector('.hint');
                    return {seq: Number(r.dataset.seq), type: r.querySelector('.type').textContent, hint: h.textContent,
                            whole: h.scrollWidth <= h.clientWidth}; })
        .sort((a, b) => a.seq - b.seq)""")
    adds = [r for r in rows if r["type"] == "add"]
    assert [r["hint"] for r in adds] == [f"productID: {n}" for n in (3, 17, 4, 8, 3, 42)], adds
    assert all(r["whole"] for r in adds), f"a hint is cut: {adds}"
    assert next(r for r in rows if r["seq"] == 0)["hint"] == "", rows[0]
    assert next(r for r in rows if r["type"] == "checkout")["hint"] == "", rows
    # Redux-style actions: the members besides the type.
    open_session(ctx, ctx.small["id"])
    d.find_element(By.ID, "follow").click()
    js(d, "window.__rewind.select(1, 'click', {center: true})")
    wait(d, lambda d: any(r["seq"] == 1 and not r["loading"] for r in dom_rows(d)), message="#1 of the small session")
    first = ctx.inspector.ask(type="events", session=ctx.small["uuid"], **{"from": 1, "limit": 4})["events"]
    hints = js(d, "return Object.fromEntries([...document.querySelectorAll('#list .row')].filter(r => !r.hidden).map(r => [r.dataset.seq, r.querySelector('.hint').textContent]))")
    for event in first:
        rest = {k: v for k, v in event["action"].items() if k != "type"}
        expected = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in rest.items())
        assert hints[str(event["seq"])] == expected, (event, hints[str(event["seq"])])


def test_non_finite_numbers_are_shown_as_numbers(ctx):
    """NaN and infinities the app recorded (strings marked by the event's nonFinite) show as
    numbers, marked, in the state and the action; a real string "NaN" stays a string."""
    d = ctx.driver
    open_session(ctx, ctx.nonfinite["id"])

    def node(tree, pointer):
        return js(d, f"""const n = document.querySelector('#{tree} .node[data-pointer="{pointer}"]');
            return n && {{value: n.querySelector('.value').textContent, kind: n.querySelector('.value').className,
                         mark: n.querySelector('.nonfinite-mark') ? n.querySelector('.nonfinite-mark').textContent : null}}""")

    for seq, number in ((1, "NaN"), (2, "Infinity"), (3, "-Infinity")):
        js(d, f"window.__rewind.select({seq}, 'click', {{center: true}})")
        wait(d, lambda d: shown_seq(d) == seq, message=f"#{seq} selected")
        js(d, "window.__rewind.tree.reveal('/reading/value')")
        shown = wait(d, lambda d: node("tree", "/reading/value"), message="/reading/value")
        assert shown == {"value": number, "kind": "value number nonfinite", "mark": "not finite"}, (seq, shown)
        label = node("tree", "/label")
        assert label["value"] == '"NaN"' and "string" in label["kind"] and label["mark"] is None, (seq, label)
    d.find_element(By.ID, "tab-action").click()
    wait(d, lambda d: js(d, "return document.getElementById('action-view').dataset.seq") == "3", message="the action pane at #3")
    action = node("action-tree", "/value")
    assert action == {"value": "-Infinity", "kind": "value number nonfinite", "mark": "not finite"}, action
    js(d, "window.__rewind.select(4, 'click', {center: true})")
    wait(d, lambda d: js(d, "return document.getElementById('action-view').dataset.seq") == "4", message="the action pane at #4")
    plain = node("action-tree", "/label")
    assert plain["value"] == '"Infinity"' and "string" in plain["kind"] and plain["mark"] is None, plain
    d.find_element(By.ID, "tab-diff").click()


def test_this_should_be_gives_the_test_command(ctx):
    """"This should be…" on a value: the right value taken (the current one offered), and the exact
    `rewind test … --expect` command to copy, which, run as shown, writes a test holding the
    expectation; a value that is not JSON is said; seq 0 is refused."""
    import shlex
    import subprocess
    d = ctx.driver
    open_session(ctx, ctx.small["id"])
    seq = 6    # filter/set: /filter is "all" there
    js(d, f"window.__rewind.select({seq}, 'click', {{center: true}})")
    wait(d, lambda d: shown_seq(d) == seq, message=f"#{seq} shown")
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, '#tree .node[data-pointer="/filter"]'), message="the /filter node")
    d.find_element(By.CSS_SELECTOR, '#tree .node[data-pointer="/filter"] .key').click()
    wait(d, lambda d: d.find_element(By.ID, "selected-path").text == "/filter", message="/filter selected")
    d.find_element(By.ID, "should-open").click()
    assert d.find_element(By.ID, "should-where").text == f"At #{seq} /filter, this should be"
    recorded = ctx.inspector.ask(type="state", session=ctx.small["uuid"], seq=seq)["value"]["filter"]
    value = d.find_element(By.ID, "should-value")
    assert json.loads(value.get_attribute("value")) == recorded, "the value shown is the recorded one"
    value.clear()
    value.send_keys("liked")
    d.find_element(By.ID, "should-add").click()
    wait(d, lambda d: "not JSON" in d.find_element(By.ID, "message").text, message="a value that is not JSON is refused")
    assert d.find_element(By.ID, "should-command-row").get_attribute("hidden") is not None
    value.clear()
    value.send_keys('"it\'s liked"')
    Select(d.find_element(By.ID, "should-kind")).select_by_value("step")
    out = os.path.join(ctx.folder, "should-tests")
    for field, text in (("should-symbol", "galleryStep"), ("should-module", "Gallery"), ("should-output", out)):
        d.find_element(By.ID, field).clear()
        d.find_element(By.ID, field).send_keys(text)
    d.find_element(By.ID, "should-add").click()
    wait(d, lambda d: d.find_element(By.ID, "should-command").text != "", message="the command")
    command = d.find_element(By.ID, "should-command").text
    expected = (f"rewind test {ctx.small['id']} --step galleryStep --module Gallery -o {out} "
                f"--server ws://127.0.0.1:{ctx.server.port} --expect '{seq}:/filter=\"it'\\''s liked\"'")
    assert command == expected, f"{command!r} != {expected!r}"
    # Run as shown (the shell's words, with the built binary for `rewind`): a test holding it.
    words = shlex.split(command)
    assert words[0] == "rewind"
    run = subprocess.run([ctx.server_binary, *words[1:]], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    name = f"smallSession{ctx.small['id']}"
    with open(os.path.join(out, name + ".swift")) as f:
        test = f.read()
    assert f'try ReplayExpectation(seq: {seq}, pointer: "/filter", json: "\\"it\'s liked\\""),' in test, test
    assert "// A recorded bug:" in test
    # Seq 0 is not an action: nothing to expect there.
    js(d, "window.__rewind.select(0, 'click', {center: true})")
    wait(d, lambda d: shown_seq(d) == 0, message="#0 shown")
    d.find_element(By.ID, "should-open").click()
    wait(d, lambda d: "seq 0 is the initial state" in d.find_element(By.ID, "message").text, message="seq 0 refused")


def test_plot_a_number_across_the_session(ctx):
    """Plot (issue 41): a number selected in the state is drawn across the session, one point per
    action that changed it, as the server's find --changed gives them; a point's title names its
    seq and action type, a click selects that seq; a second number shares the chart; × removes
    one; a string cannot be plotted."""
    d = ctx.driver
    session = ctx.cart
    open_session(ctx, session["id"])
    last = ctx.inspector.ask(type="state", session=session["uuid"], seq=session["lastSeq"])["value"]
    numbers = [key for key, value in last.items() if isinstance(value, (int, float)) and not isinstance(value, bool)]
    changing = []
    for key in numbers:
        hits = ctx.inspector.ask(type="find", session=session["uuid"], path="/" + key, changed=True, all=True)["hits"]
        if len([h for h in hits if h["exists"] and isinstance(h["value"], (int, float))]) > 1:
            changing.append(("/" + key, hits))
    assert changing, f"the cart session has no number that changes: {last}"
    js(d, "window.__rewind.select(arguments[0], 'click', {center: true})", session["lastSeq"])
    wait(d, lambda d: shown_seq(d) == session["lastSeq"], message="the last seq selected")

    def plot(path):
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, f'#tree .node[data-pointer="{path}"]'), message=f"the {path} node")
        d.find_element(By.CSS_SELECTOR, f'#tree .node[data-pointer="{path}"] .key').click()
        wait(d, lambda d: d.find_element(By.ID, "plot-add").is_enabled(), message=f"Plot enabled for {path}")
        d.find_element(By.ID, "plot-add").click()
        wait(d, lambda d: js(d, f"return !!document.querySelector('#plot-view g.plot-series[data-path=\"{path}\"]')"),
             message=f"the series of {path}")

    path, hits = changing[0]
    plot(path)
    points = js(d, f"""return [...document.querySelectorAll('#plot-view g.plot-series[data-path="{path}"] .plot-point')]
                       .map(p => [Number(p.dataset.seq), Number(p.dataset.value), p.querySelector('title').textContent])""")
    expected = [(h["seq"], h["value"], h["actionType"]) for h in hits if h["exists"] and isinstance(h["value"], (int, float))]
    assert [(s, v) for s, v, _ in points] == [(s, v) for s, v, _ in expected], f"plot {points[:5]}… != find {expected[:5]}…"
    for (seq, value, title), (_, _, action_type) in zip(points, expected):
        assert title == f"#{seq} {action_type}: {path} = {value:g}" or title == f"#{seq} {action_type}: {path} = {value}", title
    # A click on a point selects its seq.
    target = points[len(points) // 2][0]
    js(d, f"""document.querySelector('#plot-view g.plot-series[data-path="{path}"] .plot-point[data-seq="{target}"]')
              .dispatchEvent(new MouseEvent('click', {{bubbles: true}}))""")
    wait(d, lambda d: shown_seq(d) == target, message=f"#{target} selected from the plot")
    # A second number shares the chart, then × takes it off; a string cannot be plotted.
    if len(changing) > 1:
        second = changing[1][0]
        js(d, "window.__rewind.select(arguments[0], 'click', {center: true})", session["lastSeq"])
        plot(second)
        assert js(d, "return document.getElementById('plot-view').dataset.series") == "2"
        js(d, f"document.querySelector('#plot-view .plot-key[data-path=\"{second}\"] .plot-remove').click()")
        wait(d, lambda d: js(d, "return document.getElementById('plot-view').dataset.series") == "1", message="the second series removed")
    strings = [key for key, value in last.items() if isinstance(value, str)]
    if strings:
        js(d, "window.__rewind.select(arguments[0], 'click', {center: true})", session["lastSeq"])
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, f'#tree .node[data-pointer="/{strings[0]}"]'), message="a string node")
        d.find_element(By.CSS_SELECTOR, f'#tree .node[data-pointer="/{strings[0]}"] .key').click()
        wait(d, lambda d: not d.find_element(By.ID, "plot-add").is_enabled(), message="Plot disabled for a string")


WORDS_WHOLE = """
const box = arguments[0];
return [...box.querySelectorAll('.word')].filter((word) => {
  const rects = [...word.getClientRects()].filter((r) => r.width > 0);
  return rects.length > 1 && word.getBoundingClientRect().width <= box.clientWidth - 2;
}).map((word) => word.textContent);
"""


def test_layout_at_1280_and_1400(ctx):
    """At 1280×800 and 1400×900 (issue 41): the state's title is whole; "This should be…"'s
    command wraps between words; the three fields it fills keep their labels; the message bar
    wraps a long sentence instead of cutting it; "Branch with this action" is in view."""
    d = ctx.driver
    try:
        for width, height in ((1280, 800), (1400, 900)):
            set_size(d, width, height)
            open_session(ctx, ctx.small["id"])
            seq = 6
            js(d, f"window.__rewind.select({seq}, 'click', {{center: true}})")
            wait(d, lambda d: shown_seq(d) == seq, message=f"#{seq} shown")
            title = d.find_element(By.ID, "state-title")
            wait(d, lambda d: "·" in title.text, message="the title with the action type")
            assert js(d, "const t = arguments[0]; return t.scrollWidth <= t.clientWidth + 1", title), \
                f"at {width}×{height} the title is cut: {title.text!r}"

            wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, '#tree .node[data-pointer="/filter"]'), message="the /filter node")
            d.find_element(By.CSS_SELECTOR, '#tree .node[data-pointer="/filter"] .key').click()
            d.find_element(By.ID, "should-open").click()
            value = d.find_element(By.ID, "should-value")
            value.clear()
            value.send_keys('"liked"')
            fields = (("should-symbol", "galleryStepThatIsLong"), ("should-module", "GalleryModule"),
                      ("should-output", "Tests/GalleryFeatureTests/Generated/ShouldBe"))
            for field, text in fields:
                d.find_element(By.ID, field).clear()
                d.find_element(By.ID, field).send_keys(text)
            d.find_element(By.ID, "should-add").click()
            command = d.find_element(By.ID, "should-command")
            wait(d, lambda d: command.text != "", message="the command")
            split = js(d, WORDS_WHOLE, command)
            assert not split, f"at {width}×{height} the command breaks inside {split}"
            for field, _ in fields:
                label = js(d, "const l = document.getElementById(arguments[0]).closest('label'); return l ? l.textContent.trim() : ''", field)
                assert label, f"{field} has no label once filled"
            d.find_element(By.ID, "should-clear").click()

            sentence = "replay: #1…#4000 with its starting state is 40.2 MiB, over the server's 16.0 MiB message limit: replay a shorter range"
            js(d, "const m = document.getElementById('message'); m.textContent = arguments[0];", sentence)
            whole = js(d, "const m = document.getElementById('message'); return m.scrollWidth <= m.clientWidth + 1 && m.getClientRects().length > 0", )
            assert whole, f"at {width}×{height} the message is cut"

            d.find_element(By.ID, "tab-action").click()
            wait(d, lambda d: js(d, "return document.getElementById('action-view').dataset.seq") == str(seq), message="the action pane")
            d.find_element(By.ID, "branch-edit").click()
            run = d.find_element(By.ID, "branch-edit-run")
            wait(d, lambda d: run.is_displayed(), message="the branch box")
            inside = js(d, "const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight", run)
            assert inside, f"at {width}×{height} 'Branch with this action' is out of view"
            d.find_element(By.ID, "branch-edit-cancel").click()
            d.find_element(By.ID, "tab-diff").click()
    finally:
        set_size(d, 1400, 900)
