// The state shown, kept in the page: near steps apply the events' patches (forward) or inverses
// (backward) in place, so a click or a slider step needs no round trip; far jumps ask the server
// for the state, one request at a time, the latest wish winning.

import { applyPatch, resolve } from './patch.js';

const MAX_LOCAL_STEPS = 400;

export class Timeline {
  constructor(connection, store, onState) {
    this.connection = connection;
    this.store = store;
    this.onState = onState;     // (seq, state) when a fetched state arrives
    this.seq = null;
    this.state = undefined;
    this.wanted = null;
    this.fetching = false;
    // The values each operation of the last forward step replaced, for the diff pane: {seq, befores}.
    this.lastStep = null;
  }

  /// Moves to `seq`: returns true when the state is ready now, else fetches it and calls
  /// `onState` later.
  goto(seq) {
    this.wanted = seq;
    if (this.seq === seq) return true;
    if (this.stepLocally(seq)) return true;
    this.fetch();
    return false;
  }

  stepLocally(target) {
    if (this.seq === null) {
      const first = this.store.get(0);
      if (target > MAX_LOCAL_STEPS || !first || first.keyframe === undefined) return false;
      // Start from the initial state and walk forward.
      if (!this.canWalk(0, target)) return false;
      this.state = structuredClone(first.keyframe);
      this.seq = 0;
    }
    if (Math.abs(target - this.seq) > MAX_LOCAL_STEPS || !this.canWalk(this.seq, target)) return false;
    try {
      if (target > this.seq) {
        for (let s = this.seq + 1; s < target; s++) this.state = applyPatch(this.state, this.store.get(s).patch);
        // The last step one operation at a time, keeping what each found at its path.
        const befores = [];
        for (const op of this.store.get(target).patch) {
          const value = resolve(this.state, op.path);
          befores.push(value !== null && typeof value === 'object' ? structuredClone(value) : value);
          this.state = applyPatch(this.state, [op]);
        }
        this.lastStep = { seq: target, befores };
      } else {
        for (let s = this.seq; s > target; s--) this.state = applyPatch(this.state, this.store.get(s).inverse);
      }
    } catch (error) {
      // A patch that does not apply here means the page's copy went wrong: start over from the server.
      this.seq = null;
      this.state = undefined;
      return false;
    }
    this.seq = target;
    return true;
  }

  /// Whether every event between `from` and `to` is cached with what the step needs.
  canWalk(from, to) {
    if (to > from) {
      for (let s = from + 1; s <= to; s++) { const e = this.store.get(s); if (!e || !e.patch) return false; }
    } else {
      for (let s = from; s > to; s--) {
        const e = this.store.get(s);
        if (!e) return false;
        if (!e.inverse) { this.store.refresh(s); return false; }
      }
    }
    return true;
  }

  fetch() {
    if (this.fetching) return;
    const seq = this.wanted;
    this.fetching = true;
    this.connection.request({ type: 'state', session: this.store.session, seq })
      .then((reply) => {
        this.fetching = false;
        this.retries = 0;
        if (this.store.closed) return;
        const wanted = this.wanted;
        this.seq = reply.seq;
        this.state = reply.value;
        if (wanted !== seq && !this.stepLocally(wanted)) { this.fetch(); return; }
        this.onState(this.seq, this.state);
      })
      .catch((error) => {
        this.fetching = false;
        // A live event is pushed before it is committed: its state may be a moment away.
        if (error.code === 'unknown-seq' && (this.retries = (this.retries || 0) + 1) <= 20) {
          setTimeout(() => this.fetch(), 50);
          return;
        }
        this.retries = 0;
        this.onState(null, undefined, error);
      });
  }

  /// Forgets the state (a new session, or after a resync).
  reset() {
    this.seq = null;
    this.state = undefined;
  }
}
