// The session list (left): the page of sessions shown (sessionpages.js: the filter's, newest
// first, a page at a time), live ones marked, with their event counts, versions, devices and
// tags; the sessions of one run (one process's stores) together, and each branch or replay
// right under the session it came from. A click opens one.

import { crashText } from './crash.js';

export class SessionList {
  /// `open(id)` is called with the id of a clicked session, `merge(run, stores)` when a run's
  /// "merged" button is clicked (the run's stores: its branches and replays left out).
  constructor(container, page, pages, open, merge) {
    this.container = container;
    this.page = page;
    this.pages = pages;
    container.addEventListener('click', (e) => {
      const chip = e.target.closest('.tag');
      if (chip) {
        // A tag filters the list by it.
        const input = document.getElementById('filter-tag');
        input.value = chip.dataset.tag;
        input.dispatchEvent(new Event('input'));
        return;
      }
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
    const { pages } = this;
    const children = [];
    const sessions = pages.listed();
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
      if (pages.error) {
        empty.classList.add('bad');
        empty.textContent = `could not list the sessions: ${pages.error}`;
      } else if (pages.filtered) {
        empty.textContent = pages.stack.length ? 'No more sessions match the filter.' : 'No session matches the filter.';
      } else {
        empty.textContent = `No sessions yet. Stream an app to ${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/app, or run rewind import.`;
      }
      children.push(empty);
    }
    this.container.replaceChildren(...children);
    this.container.dataset.page = pages.stack.length + 1;
    document.getElementById('sessions-newer').disabled = !pages.stack.length;
    document.getElementById('sessions-older').disabled = !pages.more;
    document.getElementById('sessions-page').textContent = pages.stack.length || pages.more ? `page ${pages.stack.length + 1}` : '';
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
    const parts = [`#${s.id}`, `${count.toLocaleString()} events`, sessionState(s)];
    if (derived) parts.push(derived);
    // Today's sessions by their time; older ones with their day.
    const started = new Date(s.startedAt * 1000);
    parts.push(started.toDateString() === new Date().toDateString() ? started.toLocaleTimeString()
      : started.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' }));
    meta.textContent = parts.join(' · ');
    if (derived) item.dataset.derived = derived;
    item.append(name, meta);
    // A session whose app crashed: marked, with the signal and the action.
    if (s.crash && typeof s.crash === 'object') {
      const crash = document.createElement('div');
      crash.className = 'crash';
      crash.textContent = `crashed: ${crashText(s.crash)}`;
      item.dataset.crashed = 'true';
      item.append(crash);
    } else {
      delete item.dataset.crashed;
    }
    // What the list filters on: the version and device, and the tags, each one to click.
    const about = [s.appVersion, s.device].filter((x) => typeof x === 'string' && x);
    const tags = Array.isArray(s.tags) ? s.tags.filter((t) => typeof t === 'string') : [];
    if (about.length || tags.length) {
      const line = document.createElement('div');
      line.className = 'about';
      if (about.length) line.append(about.join(' · '));
      for (const tag of tags) {
        const chip = document.createElement('span');
        chip.className = 'tag';
        chip.dataset.tag = tag;
        chip.textContent = tag;
        chip.title = `only the sessions tagged ${tag}`;
        line.append(chip);
      }
      item.append(line);
    }
    item.dataset.tags = JSON.stringify(tags);
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

/// A session's one state, as the server and `rewind sessions` say it: live while an app streams
/// it, ended once its app said so, interrupted when it never ended and no app holds it.
export function sessionState(s) {
  if (s.state) return s.state;
  if (s.live) return 'live';
  return s.endedAt != null ? 'ended' : 'interrupted';
}
