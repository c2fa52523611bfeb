// The connection's side of the page: its status in the header, the sessions loaded on every
// (re)connect, live events and session changes pushed by the server, and catching up after lag.

const $ = (id) => document.getElementById(id);

/// Wires `connection` to the page; `ctx` holds page, controls, schedule(what), say(text, bad),
/// select(seq, source, options) and openSession(id).
export function wireConnection(connection, ctx) {
  const { page, controls, schedule, say, select, openSession } = ctx;

  connection.onStatus = (status) => {
    const el = $('status');
    el.className = `status ${status}`;
    el.textContent = { open: 'connected', connecting: 'connecting…', reconnecting: 'reconnecting…' }[status] || status;
    controls.sessionChanged();
  };

  /// Replaces the page's sessions with the server's. The open session's object is replaced too:
  /// live counts are kept on the map's entries, and Replay's range check reads page.current, so
  /// both must be the same object.
  async function loadSessions() {
    const reply = await connection.request({ type: 'sessions' });
    page.sessions = new Map(reply.sessions.map((s) => [s.id, s]));
    if (page.current && page.sessions.has(page.current.id)) page.current = page.sessions.get(page.current.id);
    schedule('sessions');
    return reply.sessions;
  }

  connection.onOpen = async () => {
    try {
      await connection.request({ type: 'subscribe', session: '*' });
      const sessions = await loadSessions();
      if (page.current && page.sessions.has(page.current.id)) {
        // After a reconnect: the same session, caught up from the log.
        page.store.resync((page.current.lastSeq ?? -1) + 1);
        page.timeline.reset();
        if (page.selected !== null) select(page.selected, 'open');
        controls.sessionChanged();
        return;
      }
      const wanted = Number(new URLSearchParams(location.hash.slice(1)).get('session'));
      const live = sessions.filter((s) => s.live).sort((a, b) => b.id - a.id);
      const pick = page.sessions.has(wanted) ? wanted : (live[0] || sessions.sort((a, b) => b.id - a.id)[0] || {}).id;
      if (pick !== undefined) openSession(pick);
    } catch (error) {
      say(`could not load the sessions: ${error.message}`, true);
    }
  };

  connection.on('event', (event) => {
    const session = page.sessions.get(event.sessionId);
    if (session) {
      session.lastSeq = Math.max(session.lastSeq ?? -1, event.seq);
      session.eventCount = session.lastSeq + 1;
      schedule('sessions');
    } else if (!page.loadingSessions) {
      // An event of a session the page has not heard of: one sessions request, not one per event.
      page.loadingSessions = true;
      loadSessions().catch(() => {}).finally(() => { page.loadingSessions = false; });
    }
    if (page.current && event.sessionId === page.current.id) {
      page.store.addLive(event);
      schedule('list');
    }
  });

  connection.on('session', (push) => {
    const s = push.session;
    page.sessions.set(s.id, s);
    if (page.current && page.current.id === s.id) {
      page.current = s;
      page.store.total = Math.max(page.store.total, (s.lastSeq ?? -1) + 1);
      controls.sessionChanged();
    }
    schedule('sessions');
    if (!page.current) openSession(s.id);
  });

  connection.on('lagged', async () => {
    say('the page fell behind the live stream; caught up from the log');
    try {
      await loadSessions();
      if (page.current && page.sessions.has(page.current.id)) page.store.resync((page.current.lastSeq ?? -1) + 1);
    } catch { /* the reconnect will resync */ }
  });
}
