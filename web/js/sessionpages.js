// The session list's pages: the sessions the filter keeps (app, version, device, tag, how
// recently they started), newest first, PAGE at a time, through the server's `sessions`
// request and its cursor. A page is all the list draws, so it stays small however many
// sessions the log holds; sessions pushed live join the first page when they match.

export const PAGE = 100;
// page.sessions keeps what the page learned (pages, pushes, single fetches); past this many it
// is cut back to the page shown and the open session.
const KEEP = 5 * PAGE;

const $ = (id) => document.getElementById(id);

export class SessionPages {
  constructor(connection, page, schedule) {
    this.connection = connection;
    this.page = page;
    this.schedule = schedule;
    this.ids = [];          // the page shown, newest first
    this.after = null;      // the cursor of the page shown (null: the first page)
    this.stack = [];        // the cursors of the pages before it, for "Newer"
    this.more = false;      // whether an older page follows
    this.error = null;
    this.generation = 0;
    this.fetching = new Set();
    this.timer = 0;
    for (const id of ['filter-app', 'filter-version', 'filter-device', 'filter-tag']) {
      $(id).addEventListener('input', () => this.filterChanged(250));
    }
    $('filter-since').addEventListener('change', () => this.filterChanged(0));
    $('sessions-older').addEventListener('click', () => this.older());
    $('sessions-newer').addEventListener('click', () => this.newer());
  }

  /// The filter's members as the `sessions` request names them; `since` from now.
  filter() {
    const f = {};
    for (const [id, key] of [['filter-app', 'app'], ['filter-version', 'appVersion'], ['filter-device', 'device'], ['filter-tag', 'tag']]) {
      const value = $(id).value.trim();
      if (value) f[key] = value;
    }
    const span = Number($('filter-since').value);
    if (span > 0) f.since = Math.floor(Date.now() / 1000 - span);
    return f;
  }

  get filtered() { return Object.keys(this.filter()).length > 0; }

  /// Whether session `s` (as the server lists it) is one the filter keeps.
  matches(s, f = this.filter()) {
    if (f.app !== undefined && s.app !== f.app) return false;
    if (f.appVersion !== undefined && s.appVersion !== f.appVersion) return false;
    if (f.device !== undefined && s.device !== f.device) return false;
    if (f.tag !== undefined && !(Array.isArray(s.tags) && s.tags.includes(f.tag))) return false;
    if (f.since !== undefined && !(s.startedAt >= f.since)) return false;
    return true;
  }

  filterChanged(delay) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.after = null;
      this.stack = [];
      this.load().catch(() => {});
    }, delay);
  }

  older() {
    if (!this.more || !this.ids.length) return;
    this.stack.push(this.after);
    this.after = this.ids[this.ids.length - 1];
    this.load().catch(() => {});
  }

  newer() {
    if (!this.stack.length) return;
    this.after = this.stack.pop();
    this.load().catch(() => {});
  }

  /// Loads the page the filter and cursor name (again); resolves with its sessions, or null
  /// when a later load overtook it. A refused filter is shown in the list and rejects.
  async load() {
    const generation = ++this.generation;
    const request = { type: 'sessions', limit: PAGE, ...this.filter() };
    if (this.after !== null) request.after = this.after;
    try {
      const reply = await this.connection.request(request);
      if (generation !== this.generation) return null;
      this.error = null;
      this.take(reply.sessions);
      this.ids = reply.sessions.map((s) => s.id);
      this.more = reply.next !== null && reply.next !== undefined;
      this.schedule('sessions');
      return reply.sessions;
    } catch (error) {
      if (generation === this.generation) {
        this.error = error.message;
        this.ids = [];
        this.more = false;
        this.schedule('sessions');
      }
      throw error;
    }
  }

  /// Keeps `sessions` in page.sessions. The open session's entry is replaced too: live counts
  /// are kept on the map's entries, and Replay's range check reads page.current, so both must
  /// be the same object.
  take(sessions) {
    const { page } = this;
    if (page.sessions.size + sessions.length > KEEP) {
      const keep = new Map();
      if (page.current && page.sessions.has(page.current.id)) keep.set(page.current.id, page.sessions.get(page.current.id));
      page.sessions = keep;
    }
    for (const s of sessions) page.sessions.set(s.id, s);
    if (page.current && page.sessions.has(page.current.id)) page.current = page.sessions.get(page.current.id);
  }

  /// A session the server pushed (started, ended): known from now on, and on the first page
  /// when the filter keeps it.
  pushed(s) {
    this.page.sessions.set(s.id, s);
    this.place(s);
    this.schedule('sessions');
  }

  place(s) {
    if (this.after !== null || this.ids.includes(s.id) || !this.matches(s)) return;
    let at = this.ids.findIndex((id) => id < s.id);
    if (at < 0) at = this.ids.length;
    // Older than the whole first page, which is full: it belongs to a later page.
    if (at === this.ids.length && this.more) return;
    this.ids.splice(at, 0, s.id);
    if (this.ids.length > PAGE) {
      this.ids.length = PAGE;
      this.more = true;
    }
  }

  /// Session `id`, fetched alone when the page does not know it (a live event of a session
  /// whose push it missed, a link to an old session): the newest session below id + 1 is the
  /// one, when it exists. Resolves with it, or null.
  async fetch(id) {
    const { page } = this;
    if (page.sessions.has(id)) return page.sessions.get(id);
    if (!Number.isInteger(id) || id < 1 || this.fetching.has(id)) return null;
    this.fetching.add(id);
    try {
      const reply = await this.connection.request({ type: 'sessions', after: id + 1, limit: 1 });
      const s = reply.sessions[0];
      if (!s || s.id !== id) return null;
      page.sessions.set(id, s);
      if (page.current && page.current.id === id) page.current = s;
      this.place(s);
      this.schedule('sessions');
      return s;
    } finally {
      this.fetching.delete(id);
    }
  }

  /// The sessions of the page shown, newest first.
  listed() {
    return this.ids.map((id) => this.page.sessions.get(id)).filter(Boolean);
  }
}
