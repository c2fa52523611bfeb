// The inspector page: wires the connection, the session list, the action list, the state tree,
// the diff and blame panes and the time-travel bar. Rendering is coalesced to one animation frame.

import { siteText } from './site.js';
import { Connection } from './connection.js';
import { EventStore } from './events.js';
import { EventList } from './eventlist.js';
import { Timeline } from './timeline.js';
import { StateTree, pointersUnder } from './tree.js';
import { renderDiff } from './changes.js';
import { setupStatePane } from './statepane.js';
import { applyPatch, resolve } from './patch.js';
import { Controls } from './controls.js';
import { SessionList, derivedLabel } from './sessionlist.js';
import { SessionPages } from './sessionpages.js';
import { RunView } from './runview.js';
import { ActionPane } from './actionpane.js';
import { BranchView } from './branchview.js';
import { wireConnection } from './live.js';

const $ = (id) => document.getElementById(id);
const connection = new Connection(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/inspect`);

const page = {
  sessions: new Map(), current: null, store: null, timeline: null,
  selected: null, compare: null, view: 'tree', tab: 'diff',
  dirty: { list: false, sessions: false }, frame: 0, diffTimer: 0, listMove: null, dimTimer: 0,
};
// Timings the measurement script reads: milliseconds from input to state rendered.
// `fetched` holds the inputs whose state had to come from the server (a far jump).
const perf = window.__rewindPerf = { click: [], slider: [], key: [], fetched: [] };
const record = (kind, ms) => { const list = perf[kind]; if (list) { list.push(ms); if (list.length > 5000) list.shift(); } };

const list = new EventList($('list'), {
  rowClick: (seq, e) => { if (e.shiftKey) setCompare(seq); else select(seq, 'click'); },
  causeClick: (seq) => select(seq, 'click', { center: true }),
  scrolled: () => schedule('list'),
  time: (at) => (page.current ? `+${(at - page.current.startedAt).toFixed(3)}s` : ''),
});
const runView = new RunView($('run-view'), connection, (id, seq) => openSession(id, seq));
const pages = new SessionPages(connection, page, (what) => schedule(what));
const sessionList = new SessionList($('sessions'), page, pages, (id) => openSession(id), (run, stores) => runView.show(run, stores));
const tree = new StateTree($('tree'), (pointer) => pane.pathSelected(pointer));
const controls = new Controls(connection, page, (text, bad) => say(text, bad), () => selectedEvents());
const actionPane = new ActionPane(page, connection, (seq) => select(seq, 'click', { center: true }));
const branchView = new BranchView(page, connection, (text, bad) => say(text, bad),
  (uuid) => { const s = [...page.sessions.values()].find((x) => x.uuid === uuid); if (s) openSession(s.id); else say('the branch has not reached the session list yet; it will in a moment', true); },
  (seq) => select(seq, 'click', { center: true }));
const pane = setupStatePane({ page, tree, connection, select: (...a) => select(...a), say: (...a) => say(...a), renderState: () => renderState(),
                              renderAction: () => renderAction(), renderOriginal: () => renderOriginal() });
const { setView, showTab, runSearch } = pane;

function schedule(what) {
  page.dirty[what] = true;
  if (!page.frame) page.frame = requestAnimationFrame(frame);
}

function frame() {
  page.frame = 0;
  if (page.dirty.sessions) { page.dirty.sessions = false; sessionList.render(); }
  if (page.dirty.list) {
    page.dirty.list = false;
    const store = page.store;
    // Following with the newest action selected: the newest stays selected as actions arrive
    // (once a frame, however many arrived).
    if ($('follow').checked && store && !store.filter && page.selected !== null &&
        page.selected === page.shownTotal - 1 && store.total - 1 > page.selected) {
      select(store.total - 1, 'live');
    }
    if (store) page.shownTotal = store.total;
    if ($('follow').checked && store) list.scrollToIndex(store.count - 1, 'end');
    list.render();
    renderCount();
    controls.showExample();
    const max = page.current ? Math.max(0, page.store.total - 1) : 0;
    if (Number($('slider').max) !== max) {
      $('slider').max = max;
      if (page.selected !== null) $('slider').value = page.selected;
    }
  }
}

function say(text, bad = false) {
  $('message').textContent = text;
  $('message').title = text;
  $('message').classList.toggle('bad', bad);
}

// --- sessions -------------------------------------------------------------------------------

function openSession(id, seq) {
  const session = page.sessions.get(id);
  if (!session) {
    // Not on the page shown (a link, a run's row): fetched alone, then opened.
    pages.fetch(id).then((s) => { if (s) openSession(id, seq); }).catch((error) => say(`session #${id}: ${error.message}`, true));
    return;
  }
  if (page.store) page.store.close();
  page.current = session;
  page.store = new EventStore(connection, session.uuid, () => { schedule('list'); retryState(); });
  page.store.total = (session.lastSeq ?? -1) + 1;
  page.timeline = new Timeline(connection, page.store, (s, state, error) => stateArrived(s, state, error));
  page.selected = null;
  page.compare = null;
  clearTimeout(page.listMove?.timer);
  page.listMove = null;
  pane.sessionOpened();
  $('compare-note').textContent = '';
  $('compare').textContent = 'Compare from here';
  page.shownTotal = page.store.total;
  list.setStore(page.store);
  list.selected = list.compare = null;
  tree.render(undefined);
  $('raw').textContent = '';
  $('diff').replaceChildren();
  const derived = derivedLabel(session, page.sessions);
  $('title').textContent = `${session.app} · session #${session.id}${derived ? ` · ${derived}` : ''}`;
  $('export-jsonl').href = `/export/${session.id}?format=jsonl`;
  $('export-redux').href = `/export/${session.id}?format=redux-devtools`;
  applyFilter();
  controls.sessionChanged(true);
  branchView.sessionChanged();
  if (page.tab === 'original' && !branchView.info()) showTab('diff');
  history.replaceState(null, '', `#session=${session.id}`);
  schedule('sessions');
  schedule('list');
  const last = page.store.total - 1;
  if (last >= 0) select(seq ?? last, 'open', { center: true });
}

// --- selection, state and diff -------------------------------------------------------------

function selectedEvents() {
  return { session: page.current, selected: page.selected, compare: page.compare, store: page.store };
}

function select(seq, source, { center = false } = {}) {
  if (!page.store || seq < 0 || seq >= page.store.total) return;
  const t0 = performance.now();
  page.selected = seq;
  list.selected = seq;
  const index = page.store.filter ? page.store.nearestIndex(seq) : seq;
  const align = center ? 'center' : 'nearest';
  $('slider').value = seq;
  $('slider-label').textContent = `#${seq}`;
  // The state first: a far seq's is asked of the server before the list asks for its rows there,
  // and the server answers an inspector's requests in turn (a far slider jump waited for them).
  const ready = page.timeline.goto(seq);
  clearTimeout(page.listMove?.timer);
  page.listMove = null;
  if (ready || source === 'live') {
    if (source !== 'live') list.scrollToIndex(index, align);
    list.render();
  } else {
    // The list moves with the state, in one frame: its rows there are asked for now, but drawing
    // them first would make the state's reply wait behind that frame's rendering (measured: the
    // jump's median 15.9 → 12 ms). A state slower than `listMoveWait` lets the list go first.
    list.prefetch(index, align);
    list.render();  // the selection's mark leaves the old place
    page.listMove = { index, align, timer: setTimeout(moveList, listMoveWait) };
  }
  // Without a compared pair, the diff follows the state shown (renderState draws both).
  if (page.compare !== null) requestDiff();
  if (ready) {
    renderState();
    record(source, performance.now() - t0);
  } else {
    page.pendingSince = t0;
    $('state-title').textContent = `State after #${seq} (loading…)`;
    // Dimmed only when the state is slow: a reply in time shows no flash (and repaints nothing).
    clearTimeout(page.dimTimer);
    page.dimTimer = setTimeout(() => { if (page.pendingSince) $('state-pane').classList.add('pending'); }, listMoveWait);
  }
  controls.selectionChanged();
}

/// Milliseconds a far selection's list waits for its state before it moves alone.
const listMoveWait = 150;

/// Moves the list to the selection it held back (see `select`), if it holds one.
function moveList() {
  const move = page.listMove;
  if (!move) return;
  clearTimeout(move.timer);
  page.listMove = null;
  list.scrollToIndex(move.index, move.align);
  list.render();
}

function retryState() {
  // A page that arrived may let the wanted state be reached locally.
  if (page.timeline && page.selected !== null && page.timeline.seq !== page.selected && !page.timeline.fetching) {
    if (page.timeline.goto(page.selected)) {
      moveList();
      renderState();
      if (page.pendingSince) record('fetched', performance.now() - page.pendingSince);
      page.pendingSince = 0;
    }
  }
}

function stateArrived(seq, state, error) {
  if (error) { moveList(); say(`state: ${error.message}`, true); return; }
  if (seq === page.selected) {
    moveList();
    renderState();
    if (page.pendingSince) record('fetched', performance.now() - page.pendingSince);
    page.pendingSince = 0;
  }
}

function renderState() {
  const seq = page.timeline.seq;
  const state = page.timeline.state;
  const event = page.store.get(seq);
  clearTimeout(page.dimTimer);
  $('state-pane').classList.remove('pending');
  $('state-pane').dataset.seq = seq;
  $('state-title').textContent = `State after #${seq}${event ? ' · ' + event.actionType : ''}`;
  $('state-title').title = $('state-title').textContent;
  const site = event && event.site;
  $('state-source').textContent = site ? `sent at ${siteText(site)} ${site.function}` : '';
  $('state-source').dataset.seq = seq;
  if (page.view === 'tree') {
    tree.setChanged(event && event.patch);
    tree.setNonFinite(pointersUnder(event && event.nonFinite, '/state'));
    tree.render(state);
  } else {
    renderRaw(state);
  }
  if ($('tree-search').value) runSearch();
  showDiffFor(seq, event);
  actionPane.render(seq, event);
  branchView.render(seq);
}

function renderOriginal() {
  if (page.timeline) branchView.render(page.timeline.seq);
}

function renderAction() {
  if (page.timeline && page.timeline.seq !== null && page.timeline.seq !== undefined) {
    actionPane.render(page.timeline.seq, page.store.get(page.timeline.seq));
  }
}

/// The diff pane for the state shown: the transition into it, drawn with the state from what
/// the page holds (the event's patch as recorded, and the values the last step replaced or the
/// event's inverse), so both panes always name the same seq. The server's diff of the two
/// states then replaces it, if that state is still the one shown (`data-local` says which).
function showDiffFor(seq, event) {
  if (page.compare !== null) { requestDiff(); return; }
  const diff = $('diff');
  $('changes-title').textContent = `#${seq}`;
  diff.dataset.from = seq - 1;
  diff.dataset.to = seq;
  if (seq === 0) {
    const note = document.createElement('div');
    note.className = 'empty';
    note.textContent = 'Seq 0 is the initial state: the whole state is in the tree.';
    diff.replaceChildren(note);
    diff.dataset.local = 'true';
    return;
  }
  const befores = page.timeline.lastStep && page.timeline.lastStep.seq === seq ? page.timeline.lastStep.befores : null;
  if (event && event.patch && (befores || event.inverse)) {
    renderDiff(diff, event.patch, event.inverse, (path) => resolve(page.timeline.state, path), befores);
    diff.dataset.local = 'true';
    requestDiff();
    return;
  }
  const note = document.createElement('div');
  note.className = 'empty';
  note.textContent = `Loading what #${seq} changed…`;
  diff.replaceChildren(note);
  diff.dataset.local = 'false';
  requestDiff();
}

function renderRaw(state) {
  const text = JSON.stringify(state, null, 2) ?? '';
  const cap = 2_000_000;
  $('raw').textContent = text.length > cap ? text.slice(0, cap) + `\n… (${(text.length - cap).toLocaleString()} more characters; copy the value for all)` : text;
}

function requestDiff() {
  // Keys held down, a slider drag or a live stream ask at most every 60 ms, for the latest.
  if (page.diffTimer) return;
  page.diffTimer = setTimeout(() => { page.diffTimer = 0; loadDiff(); }, 60);
}

function loadDiff() {
  if (page.selected === null || !page.current) return;
  // Without a compared pair: the transition into the state shown, whatever is selected now.
  const shown = page.timeline.seq;
  if (page.compare === null && (shown === null || shown === undefined)) return;
  let from = shown - 1, to = shown;
  if (page.compare !== null) { from = Math.min(page.compare, page.selected); to = Math.max(page.compare, page.selected); }
  $('changes-title').textContent = page.compare !== null ? `#${from} → #${to}` : `#${to}`;
  if (to === 0 || from === to) {
    $('diff').dataset.from = from; $('diff').dataset.to = to;
    const note = document.createElement('div');
    note.className = 'empty';
    note.textContent = to === 0 ? 'Seq 0 is the initial state: the whole state is in the tree.' : 'Pick another action to compare with.';
    $('diff').replaceChildren(note);
    return;
  }
  const session = page.current.uuid, store = page.store;
  connection.request({ type: 'diff', session, from, to }).then((reply) => {
    if (page.store !== store) return;
    const want = page.compare !== null ? [Math.min(page.compare, page.selected), Math.max(page.compare, page.selected)]
      : [page.timeline.seq - 1, page.timeline.seq];
    if (want[0] !== reply.from || want[1] !== reply.to) return;
    const after = (path) => (page.timeline.seq === reply.to ? resolve(page.timeline.state, path) : undefined);
    renderDiff($('diff'), reply.patch, reply.inverse, after, beforeValues(reply));
    $('diff').dataset.from = reply.from;
    $('diff').dataset.to = reply.to;
    $('diff').dataset.local = 'false';
    page.diffRetries = 0;
  }).catch((error) => {
    // A live event is pushed before it is committed: ask again in a moment.
    if (error.code === 'unknown-seq' && (page.diffRetries = (page.diffRetries || 0) + 1) <= 20) { requestDiff(); return; }
    page.diffRetries = 0;
    say(`diff: ${error.message}`, true);
  });
}

/// The value at each operation's path just before it applies: the state `to` is in the page,
/// its inverse gives state `from`, and the operations are replayed on a copy one by one.
function beforeValues(reply) {
  if (page.timeline.seq !== reply.to) return null;
  try {
    let doc = applyPatch(structuredClone(page.timeline.state), reply.inverse);
    return reply.patch.map((op) => {
      const value = resolve(doc, op.path);
      doc = applyPatch(doc, [op]);
      return value;
    });
  } catch {
    return null;
  }
}

function setCompare(seq) {
  page.compare = page.compare === seq ? null : seq;
  list.compare = page.compare;
  $('compare-note').textContent = page.compare !== null ? `comparing with #${page.compare} (Esc clears)` : '';
  $('compare').textContent = page.compare !== null ? 'Stop comparing' : 'Compare from here';
  list.render();
  requestDiff();
  showTab('diff');
}

// --- filters, slider, keys -----------------------------------------------------------------

let filterTimer = 0;
function applyFilter() {
  if (!page.store) return;
  page.store.setFilter($('type-filter').value.trim(), $('text-filter').value.trim());
  list.viewport.scrollTop = 0;
  schedule('list');
}
for (const id of ['type-filter', 'text-filter']) {
  $(id).addEventListener('input', () => { clearTimeout(filterTimer); filterTimer = setTimeout(applyFilter, 200); });
}

function renderCount() {
  const store = page.store;
  const el = $('count');
  if (!store) { el.textContent = 'no session'; return; }
  if (store.filter) {
    const f = store.filter;
    el.textContent = f.error ? `filter: ${f.error}` : `${f.matches.length.toLocaleString()} of ${store.total.toLocaleString()} match${f.done ? '' : ' (searching…)'}`;
    el.dataset.matches = f.matches.length;
    el.dataset.done = f.done && !f.scanning;
  } else {
    el.textContent = `${store.total.toLocaleString()} events`;
    el.dataset.matches = store.total;
    el.dataset.done = 'true';
  }
}

$('compare').addEventListener('click', () => {
  if (page.compare !== null) setCompare(page.compare); else if (page.selected !== null) setCompare(page.selected);
});
$('slider').addEventListener('input', () => select(Number($('slider').value), 'slider'));
$('follow').addEventListener('change', () => schedule('list'));
$('list').addEventListener('wheel', (e) => { if (e.deltaY < 0) $('follow').checked = false; }, { passive: true });

function moveBy(rows) {
  const store = page.store;
  if (!store || store.count === 0) return;
  const current = page.selected === null ? -1 : store.nearestIndex(page.selected);
  const index = Math.max(0, Math.min(store.count - 1, current + rows));
  const seq = store.seqAt(index);
  if (seq !== undefined) select(seq, 'key');
}

document.addEventListener('keydown', (e) => {
  // Text boxes and the slider keep their keys; a checkbox does not.
  const typing = e.target.closest('textarea, select, input:not([type=checkbox])');
  if (e.key === 'Escape') {
    if (typing) { e.target.blur(); return; }
    if (page.compare !== null) setCompare(page.compare);
    return;
  }
  if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
  const pageRows = Math.max(1, Math.floor(list.viewport.clientHeight / 24) - 1);
  const keys = {
    ArrowDown: () => moveBy(1), j: () => moveBy(1), ArrowUp: () => moveBy(-1), k: () => moveBy(-1),
    PageDown: () => moveBy(pageRows), PageUp: () => moveBy(-pageRows),
    Home: () => moveBy(-Infinity), g: () => moveBy(-Infinity), End: () => moveBy(Infinity), G: () => moveBy(Infinity),
    '/': () => $('text-filter').focus(), t: () => $('type-filter').focus(), s: () => $('tree-search').focus(),
    c: () => page.selected !== null && setCompare(page.selected), f: () => { $('follow').checked = !$('follow').checked; schedule('list'); },
    r: () => setView(page.view === 'tree' ? 'raw' : 'tree'),
  };
  const action = keys[e.key];
  if (!action) return;
  e.preventDefault();
  if (['ArrowUp', 'k', 'PageUp', 'Home', 'g'].includes(e.key)) $('follow').checked = false;
  action();
});

// --- the connection ------------------------------------------------------------------------

wireConnection(connection, { page, pages, controls, schedule, say, select: (...a) => select(...a), openSession: (id) => openSession(id) });

window.addEventListener('hashchange', () => {
  const wanted = Number(new URLSearchParams(location.hash.slice(1)).get('session'));
  if (wanted && (!page.current || page.current.id !== wanted)) openSession(wanted);
});

setInterval(() => { if (page.store) page.store.tick(); }, 250);
connection.open();
window.__rewind = { page, pages, list, tree, select, openSession, connection };
