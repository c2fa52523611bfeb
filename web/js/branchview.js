// Branches: from the action pane, ask the app to recompute the session with the selected action
// left out or replaced (the `branch` command); on a branch session, the "vs original" tab shows,
// at the selected seq, the diff from the original's state to the branch's, and the first seq
// where they differ.

import { renderDiff } from './changes.js';
import { resolve } from './patch.js';

const $ = (id) => document.getElementById(id);

export class BranchView {
  /// `openByUUID(uuid)` opens a session; `select(seq)` goes to a seq; `say(text, bad)` reports.
  constructor(page, connection, say, openByUUID, select) {
    this.page = page;
    this.connection = connection;
    this.say = say;
    this.openByUUID = openByUUID;
    this.select = select;
    this.generation = 0;
    $('branch-skip').addEventListener('click', () => {
      const seq = this.seq();
      if (seq !== null) this.branch({ skip: [seq] }, `#${seq} left out`);
    });
    $('branch-edit').addEventListener('click', () => {
      const seq = this.seq();
      if (seq === null) return;
      const event = this.page.store.get(seq);
      $('branch-edit-text').value = JSON.stringify(event ? event.action : null, null, 2);
      $('branch-edit-box').hidden = false;
      $('branch-edit-text').focus({ preventScroll: true });
      // Its buttons in view, whatever the window's height (at 1280×800 they were below it).
      $('branch-edit-run').scrollIntoView({ block: 'nearest' });
    });
    $('branch-edit-cancel').addEventListener('click', () => { $('branch-edit-box').hidden = true; });
    $('branch-edit-box').addEventListener('submit', (e) => {
      e.preventDefault();
      const seq = this.seq();
      if (seq === null) return;
      let action;
      try { action = JSON.parse($('branch-edit-text').value); } catch (error) {
        this.say(`branch: the action is not JSON (${error.message})`, true);
        return;
      }
      $('branch-edit-box').hidden = true;
      this.branch({ edit: { [seq]: action } }, `#${seq} edited`);
    });
    $('branch-result').addEventListener('click', (e) => {
      const link = e.target.closest('a');
      if (link) { e.preventDefault(); this.openByUUID(link.dataset.uuid); }
    });
    $('original-head').addEventListener('click', (e) => {
      const link = e.target.closest('a');
      if (link) { e.preventDefault(); this.select(Number(link.dataset.seq)); }
    });
  }

  seq() {
    const seq = this.page.timeline ? this.page.timeline.seq : null;
    if (seq === null || seq === undefined || seq < 1) {
      this.say('branch: pick an action (seq 0 is the initial state)', true);
      return null;
    }
    return seq;
  }

  branch(change, what) {
    const session = this.page.current;
    if (!session) return;
    const result = $('branch-result');
    result.replaceChildren();
    result.dataset.state = 'waiting';
    this.say(`branch (${what})…`);
    this.connection.request({ type: 'command', session: session.uuid, kind: 'branch', ...change })
      .then((reply) => {
        if (reply.ok === false) {
          result.dataset.state = 'refused';
          this.say(`branch: the app said: ${reply.message || 'no'}`, true);
          return;
        }
        const uuid = (reply.message || '').split(' ')[3]?.replace(/:$/, '');
        this.say(reply.message || 'branched');
        const link = document.createElement('a');
        link.href = '#';
        link.dataset.uuid = uuid;
        link.textContent = 'open the branch';
        result.append(link);
        result.dataset.state = 'done';
        result.dataset.uuid = uuid;
      })
      .catch((error) => {
        result.dataset.state = 'error';
        this.say(`branch: ${error.message}`, true);
      });
  }

  /// The branch info of the open session, if it is a branch.
  info() {
    const session = this.page.current;
    const branch = session && session.meta && session.meta.branch;
    return branch && branch.of ? branch : null;
  }

  /// Shows or hides the "vs original" tab for the open session.
  sessionChanged() {
    $('tab-original').hidden = !this.info();
  }

  /// The tab's content for `seq`: the first difference, and original → branch at `seq`.
  render(seq) {
    const branch = this.info();
    if (!branch || $('original-view').hidden || seq === null || seq === undefined) return;
    const session = this.page.current;
    const generation = ++this.generation;
    const view = $('original-view');
    view.dataset.state = 'loading';
    this.connection.request({ type: 'compare', session: branch.of, with: session.uuid, seq }).then((reply) => {
      if (generation !== this.generation) return;
      const head = $('original-head');
      head.replaceChildren();
      const original = [...this.page.sessions.values()].find((s) => s.uuid === branch.of);
      const parts = [`branch of ${original ? `session #${original.id}` : branch.of.slice(0, 8)}`];
      if (branch.skipped && branch.skipped.length) parts.push(`left out #${branch.skipped.join(', #')}`);
      if (branch.edited && branch.edited.length) parts.push(`edited #${branch.edited.join(', #')}`);
      head.append(document.createTextNode(parts.join(' · ') + ' · '));
      if (reply.firstDifference === null) {
        head.append(document.createTextNode('the same states as the original'));
      } else {
        head.append(document.createTextNode('first difference at '));
        const link = document.createElement('a');
        link.href = '#';
        link.dataset.seq = reply.firstDifference;
        link.textContent = `#${reply.firstDifference}`;
        head.append(link);
      }
      const after = (path) => (this.page.timeline.seq === seq ? resolve(this.page.timeline.state, path) : undefined);
      renderDiff($('original-diff'), reply.patch, reply.inverse, after, null);
      view.dataset.seq = seq;
      view.dataset.first = reply.firstDifference === null ? '' : reply.firstDifference;
      view.dataset.state = 'ready';
    }).catch((error) => {
      if (generation !== this.generation) return;
      view.dataset.state = 'error';
      this.say(`compare: ${error.message}`, true);
    });
  }
}
