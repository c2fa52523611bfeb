// The action pane: the selected action itself, as a tree (the state's component) and as raw
// JSON, with its type, reducer duration, coalesced mark, send site and cause chain (each cause
// a click away).

import { siteText } from './site.js';
import { StateTree, pointersUnder } from './tree.js';

const $ = (id) => document.getElementById(id);
const MAX_CAUSES = 20;

function formatDuration(ns) {
  if (ns === undefined || ns === null) return '';
  if (ns < 1_000) return `${ns} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(1)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

export class ActionPane {
  /// `select(seq)` goes to an action; `connection` fetches causes the page has not loaded.
  constructor(page, connection, select) {
    this.page = page;
    this.connection = connection;
    this.select = select;
    this.view = 'tree';
    this.tree = new StateTree($('action-tree'), () => {}, { rootLabel: '(action)' });
    this.generation = 0;
    $('action-view-tree').addEventListener('click', () => this.setView('tree'));
    $('action-view-raw').addEventListener('click', () => this.setView('raw'));
    $('action-causes').addEventListener('click', (e) => {
      const link = e.target.closest('.cause-link');
      if (link) select(Number(link.dataset.seq));
    });
  }

  setView(view) {
    this.view = view;
    $('action-view-tree').classList.toggle('on', view === 'tree');
    $('action-view-raw').classList.toggle('on', view === 'raw');
    $('action-tree').hidden = view !== 'tree';
    $('action-raw').hidden = view !== 'raw';
  }

  /// Shows the event at `seq` (when the pane is open).
  render(seq, event) {
    const pane = $('action-view');
    if (pane.hidden) return;
    const generation = ++this.generation;
    pane.dataset.seq = seq;
    const head = $('action-head');
    head.replaceChildren();
    if (!event) {
      head.textContent = `#${seq} (loading…)`;
      return;
    }
    const title = document.createElement('strong');
    title.textContent = `#${seq} · ${event.actionType || ''}`;
    head.append(title);
    const facts = [];
    if (seq > 0) facts.push(`reducer ${formatDuration(event.durationNs)}`);
    if (event.coalesced) facts.push('coalesced: the states before it were not recorded');
    if (event.site) facts.push(`sent at ${siteText(event.site)} ${event.site.function}`);
    for (const fact of facts) {
      const span = document.createElement('span');
      span.className = 'muted fact';
      span.textContent = fact;
      head.append(span);
    }
    const payload = event.action;
    this.tree.setNonFinite(pointersUnder(event.nonFinite, '/action'));
    this.tree.render(payload === undefined ? null : payload);
    $('action-raw').textContent = JSON.stringify(payload, null, 2) ?? '';
    this.renderCauses(seq, event, generation);
  }

  /// "caused by #12 ← #9 ← #3": the chain of effects that led here, fetched as needed.
  async renderCauses(seq, event, generation) {
    const box = $('action-causes');
    box.replaceChildren();
    box.dataset.chain = '';
    let cause = event.cause;
    if (cause === undefined || cause === null) {
      box.textContent = seq === 0 ? 'the initial state' : 'sent by the app (no cause)';
      return;
    }
    const chain = [];
    while (cause !== undefined && cause !== null && chain.length < MAX_CAUSES) {
      let parent = this.page.store.get(cause);
      if (!parent) {
        try {
          const reply = await this.connection.request({ type: 'events', session: this.page.current.uuid, from: cause, limit: 1 });
          parent = reply.events[0];
        } catch {
          parent = null;
        }
        if (generation !== this.generation) return;
      }
      chain.push({ seq: cause, type: parent ? parent.actionType : '?' });
      cause = parent ? parent.cause : null;
    }
    const label = document.createElement('span');
    label.className = 'muted';
    label.textContent = 'caused by ';
    box.append(label);
    chain.forEach((link, index) => {
      if (index > 0) box.append(document.createTextNode(' ← '));
      const a = document.createElement('a');
      a.href = '#';
      a.className = 'cause-link';
      a.dataset.seq = link.seq;
      a.textContent = `#${link.seq} ${link.type}`;
      a.addEventListener('click', (e) => e.preventDefault());
      box.append(a);
    });
    box.dataset.chain = chain.map((l) => l.seq).join(',');
  }
}
