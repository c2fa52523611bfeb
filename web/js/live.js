// The connection's side of the page: its status in the header, the session list's page loaded
// on every (re)connect, live events and session changes pushed by the server, and catching up
// after lag.

const $ = (id) => document.getElementById(id);

/// Wires `connection` to the page; `ctx` holds page, pages (the session list's SessionPages),
/// controls, schedule(what), say(text, bad), select(seq, source, options) and openSession(id).
export function wireConnection(connection, ctx) {
  const { page, pages, controls, schedule, say, select, openSession } = ctx;

  connection.onStatus = (status) => {
    const el = $('status');
    el.className = `status ${status}`;
    el.textContent = { open: 'connected', connecting: 'connecting…', reconnecting: 'reconnecting…' }[status] || status;
    controls.sessionChanged();
  };

  connection.onOpen = async () => {
    try {
      await connection.request({ type: 'subscribe', session: '*' });
      const sessions = (await pages.load()) || [];
      if (page.current && page.sessions.has(page.current.id)) {
        // After a reconnect: the same session, caught up from the log.
        page.store.resync((page.current.lastSeq ?? -1) + 1);
        page.timeline.reset();
        if (page.selected !== null) select(page.selected, 'open');
        controls.sessionChanged();
        return;
      }
      const wanted = Number(new URLSearchParams(location.hash.slice(1)).get('session'));
      // A link to a session the first page does not hold: that one, fetched alone.
      if (wanted && !page.sessions.has(wanted)) await pages.fetch(wanted);
      const live = sessions.filter((s) => s.live).sort((a, b) => b.id - a.id);
      const pick = page.sessions.has(wanted) ? wanted : (live[0] || [...sessions].sort((a, b) => b.id - a.id)[0] || {}).id;
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
      if (pages.ids.includes(event.sessionId)) schedule('sessions');
    } else {
      // An event of a session the page has not heard of (its push was missed): that session,
      // asked for once, not once per event.
      pages.fetch(event.sessionId).catch(() => {});
    }
    if (page.current && event.sessionId === page.current.id) {
      page.store.addLive(event);
      schedule('list');
    }
  });

  connection.on('session', (push) => {
    const s = push.session;
    pages.pushed(s);
    if (page.current && page.current.id === s.id) {
      page.current = s;
      // The push is the session's length as stored: when it is past what the live events
      // brought (one was skipped while this page lagged, and the refill read the log before it
      // was committed), the list grows to it and reads the rows it lacks from the log.
      const total = (s.lastSeq ?? -1) + 1;
      if (total > page.store.total) {
        page.store.total = total;
        schedule('list');
      }
      controls.sessionChanged();
    }
    schedule('sessions');
    if (!page.current) openSession(s.id);
  });

  connection.on('lagged', async () => {
    say('the page fell behind the live stream; caught up from the log');
    try {
      await pages.load();
      if (page.current && page.sessions.has(page.current.id)) page.store.resync((page.current.lastSeq ?? -1) + 1);
    } catch { /* the reconnect will resync */ }
  });
}
