import { siteText } from './site.js';
// A run's actions merged in time order: the sessions one process recorded (a store per screen),
// each event with its app, seq, type and send site. It shows the most recent events of each
// session (RUN_TAIL apiece); a click opens that session at that seq.

export const RUN_TAIL = 500;

export class RunView {
  /// `open(sessionId, seq)` opens a session at a seq.
  constructor(container, connection, open) {
    this.container = container;
    this.connection = connection;
    this.open = open;
    this.generation = 0;
    container.addEventListener('click', (e) => {
      if (e.target.closest('.run-close')) { this.hide(); return; }
      const row = e.target.closest('.run-row');
      if (row) { this.hide(); open(Number(row.dataset.session), Number(row.dataset.seq)); }
    });
  }

  hide() {
    this.generation += 1;
    this.container.hidden = true;
    this.container.replaceChildren();
  }

  /// Fetches the last events of every session of the run and lists them merged by time.
  async show(run, sessions) {
    const generation = ++this.generation;
    this.container.hidden = false;
    this.container.dataset.run = run;
    this.container.dataset.state = 'loading';
    this.container.replaceChildren(this.head(run, sessions, 'loading…'));
    let merged = [];
    try {
      const pages = await Promise.all(sessions.map((s) => this.tail(s)));
      merged = pages.flat();
    } catch (error) {
      if (generation !== this.generation) return;
      this.container.replaceChildren(this.head(run, sessions, `could not load: ${error.message}`));
      this.container.dataset.state = 'error';
      return;
    }
    if (generation !== this.generation) return;
    merged.sort((a, b) => a.event.at - b.event.at || a.session.id - b.session.id || a.event.seq - b.event.seq);
    const start = merged.length ? merged[0].event.at : 0;
    const rows = merged.map(({ session, event }) => {
      const row = document.createElement('div');
      row.className = 'run-row';
      row.dataset.session = session.id;
      row.dataset.seq = event.seq;
      row.dataset.at = event.at;
      const cells = [
        ['time', `+${(event.at - start).toFixed(3)}s`],
        ['app', session.app || '(unnamed)'],
        ['seq', `#${event.seq}`],
        ['type', event.actionType || ''],
        ['site', event.site ? `${siteText(event.site)}` : ''],
      ];
      for (const [name, text] of cells) {
        const span = document.createElement('span');
        span.className = name;
        span.textContent = text;
        row.append(span);
      }
      return row;
    });
    const note = `${merged.length.toLocaleString()} events, the last ${RUN_TAIL} of each store, merged in time order`;
    const body = document.createElement('div');
    body.className = 'run-rows';
    body.append(...rows);
    this.container.replaceChildren(this.head(run, sessions, note), body);
    this.container.dataset.state = 'ready';
  }

  async tail(session) {
    const last = session.lastSeq ?? -1;
    if (last < 0) return [];
    const from = Math.max(0, last - RUN_TAIL + 1);
    const out = [];
    let next = from;
    // A page may come back cut to fit the server's reply limit; follow `next`.
    while (next !== null && next !== undefined && next <= last && out.length < RUN_TAIL) {
      const reply = await this.connection.request({ type: 'events', session: session.uuid, from: next, limit: last - next + 1 });
      for (const event of reply.events) if (event.seq <= last) out.push({ session, event });
      next = reply.next;
    }
    return out;
  }

  head(run, sessions, note) {
    const head = document.createElement('div');
    head.className = 'bar run-bar';
    const title = document.createElement('strong');
    title.textContent = `run ${String(run).slice(0, 8)} · ${sessions.map((s) => s.app).join(', ')}`;
    const muted = document.createElement('span');
    muted.className = 'muted run-note';
    muted.textContent = note;
    const spacer = document.createElement('span');
    spacer.className = 'spacer-flex';
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'run-close';
    close.textContent = 'Close';
    head.append(title, muted, spacer, close);
    return head;
  }
}
