// The events of one session as the page sees them: a bounded cache of pages fetched on demand
// (row i of the unfiltered list is seq i, seqs have no gaps), live events added as they come, and
// for a filter the list of matching seqs, scanned on the server page by page.

export const PAGE = 200;
const MAX_PAGES = 60;          // 12,000 events at most in memory, whatever the session's length
const MAX_IN_FLIGHT = 4;
const SCAN_LIMIT = 1000;

export class EventStore {
  constructor(connection, session, onChange) {
    this.connection = connection;
    this.session = session;          // the uuid
    this.onChange = onChange;
    this.total = 0;                  // lastSeq + 1
    this.pages = new Map();          // page index → {slots, used}
    this.inFlight = new Set();
    this.queue = [];
    this.pinned = new Set();
    this.clock = 0;
    this.filter = null;              // {typeGlob, text, matches, next, done, generation}
    this.generation = 0;
    this.latestLive = -1;
    this.safeSeq = -1;               // a seq seen long enough ago to be committed
    this.closed = false;
  }

  close() { this.closed = true; }

  get count() { return this.filter ? this.filter.matches.length : this.total; }

  /// The seq shown at row `index`.
  seqAt(index) { return this.filter ? this.filter.matches[index] : index; }

  /// The row of `seq`, or -1 when the filter hides it.
  indexOf(seq) {
    if (!this.filter) return seq < this.total ? seq : -1;
    const m = this.filter.matches;
    let lo = 0, hi = m.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (m[mid] === seq) return mid;
      if (m[mid] < seq) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
  }

  /// The nearest row at or before `seq` (for a filter), else 0.
  nearestIndex(seq) {
    if (!this.filter) return Math.min(seq, this.total - 1);
    const m = this.filter.matches;
    let lo = 0, hi = m.length - 1, best = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (m[mid] <= seq) { best = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return best;
  }

  get(seq) {
    const page = this.pages.get(Math.floor(seq / PAGE));
    if (!page) return undefined;
    page.used = ++this.clock;
    return page.slots[seq % PAGE];
  }

  put(event) {
    const index = Math.floor(event.seq / PAGE);
    let page = this.pages.get(index);
    if (!page) {
      page = { slots: new Array(PAGE), used: ++this.clock };
      this.pages.set(index, page);
      this.evict();
    }
    const old = page.slots[event.seq % PAGE];
    // A live event has no inverse; keep the one a page reply brought.
    if (old && old.inverse && !event.inverse) event.inverse = old.inverse;
    page.slots[event.seq % PAGE] = event;
  }

  evict() {
    if (this.pages.size <= MAX_PAGES) return;
    const candidates = [...this.pages.entries()].filter(([i]) => !this.pinned.has(i)).sort((a, b) => a[1].used - b[1].used);
    for (const [i] of candidates) {
      if (this.pages.size <= MAX_PAGES) break;
      this.pages.delete(i);
    }
  }

  /// Makes sure the drawn seqs are loaded (their missing pages are fetched) and keeps their
  /// pages. A filtered list may draw seqs far apart: only their own pages count.
  want(seqs) {
    this.pinned.clear();
    for (const seq of seqs) {
      if (seq === undefined || seq >= this.total) continue;
      const i = Math.floor(seq / PAGE);
      if (!this.pinned.has(i)) this.pinned.add(i);
      const page = this.pages.get(i);
      if (!page || !page.slots[seq % PAGE]) this.fetch(i);
    }
  }

  /// Fetches a page again, e.g. to get the inverses live events lack.
  refresh(seq) { this.fetch(Math.floor(seq / PAGE), true); }

  fetch(index, force = false) {
    if (this.inFlight.has(index) || (!force && this.queue.includes(index))) return;
    // A tail page may still miss events the server has not committed: ask again, but calmly.
    const now = performance.now();
    const last = this.fetchedAt?.get(index) ?? -1e9;
    if (!force && last > now - 300) {
      // Not now, but once the 300 ms are up: the list is drawn again then and asks for what it
      // still lacks, even when nothing else happens meanwhile (a session that just ended).
      if (!this.retryTimer) {
        this.retryTimer = setTimeout(() => { this.retryTimer = null; if (!this.closed) this.onChange(); }, last + 300 - now);
      }
      return;
    }
    (this.fetchedAt ??= new Map()).set(index, now);
    if (this.fetchedAt.size > 4 * MAX_PAGES) this.fetchedAt.clear();
    if (this.inFlight.size >= MAX_IN_FLIGHT) { this.queue.push(index); return; }
    this.inFlight.add(index);
    this.readRange(index * PAGE, (index + 1) * PAGE)
      .catch(() => {})
      .finally(() => {
        this.inFlight.delete(index);
        const next = this.queue.shift();
        if (next !== undefined && !this.closed) this.fetch(next);
      });
  }

  /// Reads events `from` up to (not including) `end`: the server cuts a page of large events to
  /// fit its reply limit and says where to go on with `next`.
  async readRange(from, end) {
    while (from !== null && from !== undefined && from < end && !this.closed) {
      const reply = await this.connection.request({ type: 'events', session: this.session, from, limit: end - from });
      if (this.closed) return;
      for (const event of reply.events) this.put(event);
      if (reply.events.length) this.total = Math.max(this.total, reply.events[reply.events.length - 1].seq + 1);
      this.onChange();
      from = reply.events.length < end - from ? reply.next : null;
    }
  }

  addLive(event) {
    this.total = Math.max(this.total, event.seq + 1);
    this.latestLive = Math.max(this.latestLive, event.seq);
    if (this.pages.has(Math.floor(event.seq / PAGE)) || event.seq % PAGE === 0 || this.pinned.has(Math.floor(event.seq / PAGE))) {
      this.put(event);
    }
    if (this.filter && this.filter.done) this.scheduleRescan();
  }

  /// Called every 250 ms: what was the latest seq a tick ago is committed by now (the server
  /// commits within about 20 ms), so a filter scan may start after it.
  tick() {
    this.safeSeq = this.previousLive ?? -1;
    this.previousLive = this.latestLive;
  }

  setFilter(typeGlob, text) {
    this.generation++;
    if (!typeGlob && !text) { this.filter = null; this.onChange(); return; }
    this.filter = { typeGlob, text, matches: [], next: 0, done: false, generation: this.generation, scanning: false };
    this.scan();
  }

  scheduleRescan() {
    if (this.rescanTimer) return;
    this.rescanTimer = setTimeout(() => { this.rescanTimer = null; if (this.filter && this.filter.done) this.scan(); }, 300);
  }

  /// Reads matching events from `filter.next` on, a page at a time, until the log has no more.
  scan() {
    const filter = this.filter;
    if (!filter || filter.scanning || this.closed) return;
    filter.scanning = true;
    filter.done = false;
    const request = { type: 'events', session: this.session, from: filter.next, limit: SCAN_LIMIT };
    if (filter.typeGlob) request.typeGlob = filter.typeGlob;
    if (filter.text) request.text = filter.text;
    const safe = this.safeSeq;
    this.connection.request(request).then((reply) => {
      if (this.filter !== filter || this.closed) return;
      filter.scanning = false;
      for (const event of reply.events) {
        if (filter.matches.length && event.seq <= filter.matches[filter.matches.length - 1]) continue;
        filter.matches.push(event.seq);
        this.put(event);
      }
      const lastMatch = filter.matches.length ? filter.matches[filter.matches.length - 1] : -1;
      if (reply.next !== null && reply.next !== undefined) {
        filter.next = reply.next;
        this.onChange();
        this.scan();
      } else {
        filter.next = Math.max(lastMatch + 1, safe + 1, filter.next);
        filter.done = true;
        this.onChange();
        if (this.latestLive >= filter.next) this.scheduleRescan();
      }
    }).catch((error) => {
      if (this.filter !== filter) return;
      filter.scanning = false;
      filter.error = error.message;
      filter.done = true;
      this.onChange();
    });
  }

  /// After a reconnect or a `lagged`: forget what may be stale and read it again.
  resync(total) {
    this.total = Math.max(total, this.total);
    const tail = Math.floor(Math.max(0, this.latestLive) / PAGE);
    for (const i of [...this.pages.keys()]) if (i >= tail - 1) this.pages.delete(i);
    if (this.filter) this.setFilter(this.filter.typeGlob, this.filter.text);
    this.onChange();
  }
}
