// The session list (left): every session in the log, newest first, live ones marked, with their
// event counts; the sessions of one run (one process's stores) together, and each branch or
// replay right under the session it came from. A click opens one.

export class SessionList {
  /// `open(id)` is called with the id of a clicked session, `merge(run, stores)` when a run's
  /// "merged" button is clicked (the run's stores: its branches and replays left out).
  constructor(container, page, open, merge) {
    this.container = container;
    this.page = page;
    container.addEventListener('click', (e) => {
      const button = e.target.closest('.run-merge');
      if (button) {
        const run = button.closest('.run-group').dataset.run;
        const sessions = [...page.sessions.values()];
        merge(run, sessions.filter((s) => s.run === run && !isDerived(s, sessions)).sort((a, b) => a.id - b.id));
        return;
      }
      const item = e.target.closest('.session');
      if (item) open(Number(item.dataset.id));
    });
  }

  render() {
    const { page } = this;
    const children = [];
    const sessions = [...page.sessions.values()];
    const derived = derivedBySource(sessions);
    // A session, then what was derived from it (a branch of a branch under its branch).
    const seen = new Set();
    const withDerived = (s, depth = 0) => {
      if (seen.has(s.uuid)) return [];
      seen.add(s.uuid);
      const items = [this.item(s, depth)];
      for (const d of derived.get(s.uuid) || []) items.push(...withDerived(d, depth + 1, seen));
      return items;
    };
    for (const group of groupByRun(sessions.filter((s) => !isDerived(s, sessions)))) {
      const items = group.flatMap((s) => withDerived(s));
      if (group.length > 1) {
        // One process's stores (a BLoC or MVVM app has one per screen), shown together.
        const box = document.createElement('div');
        box.className = 'run-group';
        box.dataset.run = group[0].run;
        const head = document.createElement('div');
        head.className = 'run-head';
        const label = document.createElement('span');
        label.textContent = `run ${String(group[0].run).slice(0, 8)} · ${group.length} stores`;
        const merge = document.createElement('button');
        merge.type = 'button';
        merge.className = 'run-merge';
        merge.textContent = 'merged';
        merge.title = "this run's actions in one list, in time order";
        head.append(label, merge);
        box.append(head, ...items);
        children.push(box);
      } else {
        children.push(...items);
      }
    }
    // Sessions that replay each other in a circle (a hand-made log) are listed all the same.
    for (const s of sessions.sort((a, b) => b.id - a.id)) if (!seen.has(s.uuid)) children.push(...withDerived(s));
    if (!children.length) {
      const empty = document.createElement('div');
      empty.className = 'empty';
      empty.textContent = `No sessions yet. Stream an app to ${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/app, or run rewind import.`;
      children.push(empty);
    }
    this.container.replaceChildren(...children);
  }

  item(s, depth = 0) {
    const { page } = this;
    const item = document.createElement('div');
    const derived = derivedLabel(s, page.sessions);
    item.className = 'session' + (page.current && page.current.id === s.id ? ' selected' : '') + (s.live ? ' live' : '')
      + (derived ? ' derived' : '');
    item.dataset.id = s.id;
    item.dataset.count = (s.lastSeq ?? -1) + 1;
    if (depth) item.style.setProperty('--depth', depth);
    item.setAttribute('role', 'option');
    const name = document.createElement('div');
    name.className = 'name';
    name.textContent = s.app || '(unnamed)';
    const meta = document.createElement('div');
    meta.className = 'meta';
    const count = (s.lastSeq ?? -1) + 1;
    const parts = [`#${s.id}`, `${count.toLocaleString()} events`, s.live ? 'live' : 'ended'];
    if (derived) parts.push(derived);
    parts.push(new Date(s.startedAt * 1000).toLocaleTimeString());
    meta.textContent = parts.join(' · ');
    if (derived) item.dataset.derived = derived;
    item.append(name, meta);
    return item;
  }
}

/// What a session derived from another says of itself: `branch of #3 · left out #7 · edited
/// #12` (a branch: its meta's `branch`), `replay of #3` (a replay the app recorded), or `null`.
/// `sessions` (a Map by id, or an array) names the original by its id when it is there.
export function derivedLabel(s, sessions) {
  if (!s || s.replayOf === null || s.replayOf === undefined) return null;
  const all = sessions instanceof Map ? [...sessions.values()] : sessions || [];
  const original = all.find((o) => o.uuid === s.replayOf);
  const name = original ? `#${original.id}` : String(s.replayOf).slice(0, 8);
  const branch = s.meta && s.meta.branch;
  if (!branch || typeof branch !== 'object') return `replay of ${name}`;
  const parts = [`branch of ${name}`];
  if (Array.isArray(branch.skipped) && branch.skipped.length) parts.push(`left out #${branch.skipped.join(', #')}`);
  if (Array.isArray(branch.edited) && branch.edited.length) parts.push(`edited #${branch.edited.join(', #')}`);
  return parts.join(' · ');
}

/// Whether `s` is listed under the session it came from: a branch or replay whose original is
/// among `sessions`.
export function isDerived(s, sessions) {
  return s.replayOf !== null && s.replayOf !== undefined && s.replayOf !== s.uuid && sessions.some((o) => o.uuid === s.replayOf);
}

/// The derived sessions by their original's uuid, oldest first.
function derivedBySource(sessions) {
  const map = new Map();
  for (const s of [...sessions].sort((a, b) => a.id - b.id)) {
    if (!isDerived(s, sessions)) continue;
    if (!map.has(s.replayOf)) map.set(s.replayOf, []);
    map.get(s.replayOf).push(s);
  }
  return map;
}

/// Sessions newest first, the sessions of one run together (newest first within it), each run
/// placed where its newest session falls.
export function groupByRun(sessions) {
  const sorted = [...sessions].sort((a, b) => b.id - a.id);
  const groups = [];
  const byRun = new Map();
  for (const s of sorted) {
    const run = s.run;
    if (run === null || run === undefined) { groups.push([s]); continue; }
    let group = byRun.get(run);
    if (!group) { group = []; byRun.set(run, group); groups.push(group); }
    group.push(s);
  }
  return groups;
}
