// The session list (left): every session in the log, newest first, live ones marked, with their
// event counts. A click opens one.

export class SessionList {
  /// `open(id)` is called with the id of a clicked session.
  constructor(container, page, open) {
    this.container = container;
    this.page = page;
    container.addEventListener('click', (e) => {
      const item = e.target.closest('.session');
      if (item) open(Number(item.dataset.id));
    });
  }

  render() {
    const { page } = this;
    const sorted = [...page.sessions.values()].sort((a, b) => b.id - a.id);
    const children = sorted.map((s) => {
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
    });
    if (!children.length) {
      const empty = document.createElement('div');
      empty.className = 'empty';
      empty.textContent = `No sessions yet. Stream an app to ws://${location.host}/app, or run rewind import.`;
      children.push(empty);
    }
    this.container.replaceChildren(...children);
  }
}
