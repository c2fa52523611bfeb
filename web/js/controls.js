// The time-travel bar's commands to the app: jump, resume, pause, dispatch and replay. They
// reach the app only while its session is live; the app's answer is shown in the message line.

import { sessionState } from './sessionlist.js';

const $ = (id) => document.getElementById(id);
const MAX_REPLAY = 20000;
const size = (bytes) => (bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);

export class Controls {
  constructor(connection, page, say, current) {
    this.connection = connection;
    this.page = page;
    this.say = say;
    this.current = current;
    $('jump').addEventListener('click', () => this.jump());
    $('resume').addEventListener('click', () => this.command({ kind: 'resume' }, 'the app is back to its live state'));
    $('pause').addEventListener('click', () => this.command({ kind: 'pause' }, 'the app stopped recording until resume'));
    $('dispatch').addEventListener('click', () => this.dispatch());
    $('dispatch-text').addEventListener('keydown', (e) => { if (e.key === 'Enter') this.dispatch(); });
    $('replay').addEventListener('click', () => this.replay());
    // Once typed into, the replay range is the user's: selections no longer fill it in.
    this.edited = false;
    for (const id of ['replay-from', 'replay-to']) $(id).addEventListener('input', () => { this.edited = true; });
  }

  get live() {
    const { session } = this.current();
    return Boolean(session && session.live && this.connection.status === 'open');
  }

  sessionChanged(newSession = false) {
    if (newSession) {
      this.edited = false;
      this.example = undefined;
      this.fetchExample();
    }
    for (const id of ['jump', 'resume', 'pause', 'dispatch', 'replay']) $(id).disabled = !this.live;
    const { session } = this.current();
    const hint = !session || session.live ? ''
      : sessionState(session) === 'interrupted' ? 'the session was interrupted (its app is gone): commands need a live app'
      : 'the session has ended: commands need a live app';
    for (const id of ['jump', 'resume', 'pause', 'dispatch', 'replay']) $(id).dataset.hint = hint;
    this.selectionChanged();
  }

  /// Dispatch's placeholder: an action in the app's own shape, the session's last action (a
  /// Codable enum's `{"add":{"productID":3}}` as much as a Redux `{"type":"cart/add",…}`), cut
  /// to stay readable; the whole of it in the box's title. Called on every list frame: it reads
  /// what the page holds.
  showExample() {
    const store = this.page.store;
    if (!store) return;
    let action;
    for (let seq = store.total - 1; seq >= 1 && seq >= store.total - 50; seq--) {
      const event = store.get(seq);
      if (!event) continue;
      action = appAction(event);
      if (action !== undefined) break;
    }
    if (action === undefined) return;
    this.setExample(action);
  }

  /// Reads the last action of a session just opened (the list may not have loaded it).
  async fetchExample() {
    const { session } = this.current();
    this.setExample(undefined);
    const last = session ? session.lastSeq ?? 0 : 0;
    if (!session || last < 1) return;
    try {
      // The last few: the newest may be Rewind's own mark (a replay's), which is no example.
      const reply = await this.connection.request({ type: 'events', session: session.uuid, from: Math.max(1, last - 19), limit: 20 });
      const action = reply.events.map(appAction).filter((found) => found !== undefined).pop();
      if (action !== undefined && this.current().session === session && this.example === undefined) {
        this.setExample(action);
      }
    } catch { /* the list's pages give it later */ }
  }

  setExample(action) {
    const box = $('dispatch-text');
    if (action === undefined) {
      box.placeholder = 'an action as JSON, in the app\'s own shape';
      box.title = '';
      return;
    }
    const text = JSON.stringify(action);
    if (text === this.example) return;
    this.example = text;
    const shown = text.length > 48 ? text.slice(0, 47) + '…' : text;
    box.placeholder = `e.g. ${shown}`;
    box.title = `an action as JSON, in the app's own shape, like this session's last one: ${text}`;
  }

  selectionChanged() {
    const { selected, compare } = this.current();
    if (selected === null || this.edited) return;
    if (compare !== null) {
      $('replay-from').value = Math.min(selected, compare);
      $('replay-to').value = Math.max(selected, compare);
    } else {
      $('replay-to').value = selected;
    }
  }

  command(body, done) {
    const { session } = this.current();
    if (!session) return Promise.resolve();
    this.say(`${body.kind}…`);
    return this.connection.request({ type: 'command', session: session.uuid, ...body })
      .then((reply) => {
        if (reply.ok === false) this.say(`${body.kind}: the app said: ${reply.message || 'no'}`, true);
        else this.say(reply.message ? `${done} (${reply.message})` : done);
      })
      .catch((error) => this.say(`${body.kind}: ${error.message}`, true));
  }

  jump() {
    const { selected } = this.current();
    if (selected === null) return;
    this.command({ kind: 'jump', seq: selected }, `the app shows #${selected} (its work goes on underneath until Resume)`);
  }

  dispatch() {
    let action;
    try {
      action = JSON.parse($('dispatch-text').value);
    } catch (error) {
      this.say(`the action is not JSON: ${error.message}`, true);
      return;
    }
    this.command({ kind: 'dispatch', action }, 'dispatched');
  }

  /// Sends the recorded actions from…to with the state before `from`, at the chosen pace.
  async replay() {
    const { session } = this.current();
    const from = Number($('replay-from').value), to = Number($('replay-to').value), pace = Number($('replay-pace').value);
    const last = (session.lastSeq ?? -1);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > last) {
      this.say(`replay: from and to must be seqs with 0 ≤ from ≤ to ≤ ${last}`, true);
      return;
    }
    if (to - from + 1 > MAX_REPLAY) {
      this.say(`replay: at most ${MAX_REPLAY.toLocaleString()} actions at a time`, true);
      return;
    }
    // Seq 0 is the initial state, not an action: the actions start at seq 1, and the state sent
    // is the one before the first action sent (as `rewind replay --into` does).
    const first = Math.max(1, from);
    if (first > to) {
      this.say('replay: seq 0 is the initial state, not an action: pick a range that ends at 1 or later', true);
      return;
    }
    try {
      this.say('replay: reading the actions…');
      const state = (await this.connection.request({ type: 'state', session: session.uuid, seq: first - 1 })).value;
      const actions = [];
      // Where the app sent each action: the replay's session records them as the original did.
      const sites = [];
      let next = first;
      while (next !== null && next <= to) {
        const reply = await this.connection.request({ type: 'events', session: session.uuid, from: next, limit: Math.min(5000, to - next + 1) });
        for (const event of reply.events) {
          if (event.seq > to) continue;
          actions.push(event.action);
          sites.push(event.site ?? null);
        }
        next = reply.events.length ? reply.events[reply.events.length - 1].seq + 1 : null;
      }
      const body = { kind: 'replay', of: this.page.current.uuid, from: first, to, pace: pace > 0 ? pace : undefined, state, actions, sites };
      // The server closes a connection whose message is over its limit: say so before sending.
      const bytes = this.connection.sizeOf({ type: 'command', session: session.uuid, ...body });
      if (bytes > this.connection.maxMessage) {
        this.say(`replay: #${first}…#${to} with its starting state is ${size(bytes)}, over the server's ${size(this.connection.maxMessage)} message limit: replay a shorter range`, true);
        return;
      }
      await this.command(body, `replayed #${first}…#${to} at ${pace > 0 ? pace + '/s' : 'once'}`);
    } catch (error) {
      this.say(`replay: ${error.message}`, true);
    }
  }
}

/// The app's action an event holds, as Dispatch takes it: the action itself, the one a branch left
/// out (`@@rewind/skipped`), and none for Rewind's other marks (`@@rewind/replayed`, …), which
/// the app's reducer would not know.
export function appAction(event) {
  const type = event.actionType ?? '';
  if (type === '@@rewind/skipped') return event.action && typeof event.action === 'object' ? event.action.action : undefined;
  if (type.startsWith('@@rewind/')) return undefined;
  return event.action;
}
