// The session list (left): every session in the log, newest first, live ones marked, with their
// event counts; the sessions of one run (one process's stores) together. A click opens one.

export class SessionList {
  /// `open(id)` is called with the id of a clicked session, `merge(run, sessions)` when a run's
  /// "merged" button is clicked.
  constructor(container, page, open, merge) {
    this.container = container;
    this.page = page;
    container.addEventListener('click', (e) => {
      const button = e.target.closest('.run-merge');
      if (button) {
        const run = button.closest('.run-group').dataset.run;
        merge(run, [...page.sessions.values()].filter((s) => s.run === run).sort((a, b) => a.id - b.id));
        return;
      }
      const item = e.target.closest('.session');
      if (item) open(Number(item.dataset.id));
    });
  }

  render() {
    const { page } = this;
    const children = [];
    for (const group of groupByRun([...page.sessions.values()])) {
      const items = group.map((s) => this.item(s));
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
    if (!children.length) {
      const empty = document.createElement('div');
      empty.className = 'empty';
      empty.textContent = `No sessions yet. Stream an app to ws://${location.host}/app, or run rewind import.`;
      children.push(empty);
    }
    this.container.replaceChildren(...children);
  }

  item(s) {
    const { page } = this;
    const item = document.createElement('div');
    item.className = 'session' + (page.current && page.current.id === s.id ? ' selected' : '') + (s.live ? ' live' : '');
    item.dataset.id = s.id;
    item.dataset.count = (s.lastSeq ?? -1) + 1;
    item.setAttribute('role', 'option');
    const name = document.createElement('div');
    name.className = 'name';
    name.textContent = s.app || '(unnamed)';
    const meta = document.createElement('div');
    meta.className = 'meta';
    const count = (s.lastSeq ?? -1) + 1;
    const replay = s.replayOf !== null && s.replayOf !== undefined ? ` · replay of ${String(s.replayOf).slice(0, 8)}` : '';
    meta.textContent = `#${s.id} · ${count.toLocaleString()} events · ${s.live ? 'live' : 'ended'}${replay} · ${new Date(s.startedAt * 1000).toLocaleTimeString()}`;
    item.append(name, meta);
    return item;
  }
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
