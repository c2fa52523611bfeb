import { siteText } from './site.js';
import { crashText } from './crash.js';
// The action list, virtualised: a spacer as tall as every row, and a fixed pool of row elements
// moved to the visible window. Rows are filled from the event cache; missing pages are asked
// for and fill in when they arrive.

export const ROW = 24;
const OVERSCAN = 8;

export function formatDuration(ns) {
  if (ns === undefined || ns === null) return '';
  if (ns < 1000) return `${ns} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 1 : 0)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 1 : 0)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

/// A short hint of an action's payload for its row, so that rows of one type tell apart: the
/// members besides `type` (`{"type":"add","id":5}` gives `id: 5`), the payload of a one-key
/// action (`{"add":{"productID":3}}` gives `productID: 3`; `{"set":{"_0":2}}` gives `2`), nothing
/// for a bare string. Nested objects show as `{…}`, arrays as `[N]`; cut at `max` characters.
export function payloadHint(action, max = 60) {
  if (action === null || action === undefined || typeof action === 'string') return '';
  let payload = action;
  if (typeof action === 'object' && !Array.isArray(action)) {
    const keys = Object.keys(action);
    if (typeof action.type === 'string') {
      payload = {};
      for (const key of keys) if (key !== 'type') Object.defineProperty(payload, key, { value: action[key], enumerable: true });
    } else if (keys.length === 1) {
      payload = action[keys[0]];
    }
  }
  const text = hintOf(payload);
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function hintOf(value) {
  if (value === null || typeof value !== 'object') return shortValue(value);
  if (Array.isArray(value)) return value.map(shortValue).join(', ');
  // Swift's positional associated values (`_0`, `_1`) read best without their names.
  return Object.keys(value).map((key) => (/^_\d+$/.test(key) ? '' : `${key}: `) + shortValue(value[key])).join(', ');
}

function shortValue(value) {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text.length > 26 ? text.slice(0, 25) + '…' : text;
  }
  return Array.isArray(value) ? `[${value.length}]` : Object.keys(value).length ? '{…}' : '{}';
}

/// An action's type as the log names it: its `type`, the key of a one-key object, a bare string.
export function actionTypeOf(action) {
  if (typeof action === 'string') return action;
  if (action && typeof action === 'object' && !Array.isArray(action)) {
    if (typeof action.type === 'string') return action.type;
    const keys = Object.keys(action);
    if (keys.length === 1) return keys[0];
  }
  return '?';
}

export class EventList {
  constructor(viewport, handlers) {
    this.viewport = viewport;
    this.handlers = handlers;       // {rowClick(seq, event), causeClick(seq)}
    this.spacer = document.createElement('div');
    this.spacer.className = 'spacer';
    viewport.append(this.spacer);
    this.rows = [];
    this.store = null;
    this.selected = null;
    this.compare = null;
    this.startAt = 0;
    viewport.addEventListener('scroll', () => handlers.scrolled());
    this.spacer.addEventListener('click', (e) => {
      const row = e.target.closest('.row');
      if (!row || row.dataset.seq === undefined) return;
      const seq = Number(row.dataset.seq);
      const cause = e.target.closest('.cause');
      if (cause) { handlers.causeClick(Number(cause.dataset.cause)); return; }
      handlers.rowClick(seq, e);
    });
  }

  setStore(store) {
    this.store = store;
    this.viewport.scrollTop = 0;
  }

  scrollToIndex(index, align = 'nearest') {
    const top = this.scrollTopFor(index, align);
    if (top !== this.viewport.scrollTop) this.viewport.scrollTop = top;
  }

  /// Where `scrollToIndex` would scroll to.
  scrollTopFor(index, align) {
    const top = index * ROW, view = this.viewport.clientHeight, now = this.viewport.scrollTop;
    if (align === 'end') return Math.max(0, this.spacer.offsetHeight - view);
    if (align === 'center') return Math.max(0, top - view / 2);
    if (top < now) return top;
    if (top + ROW > now + view) return top + ROW - view;
    return now;
  }

  /// Asks the store for the rows `scrollToIndex(index, align)` would show, without moving.
  prefetch(index, align = 'nearest') {
    const store = this.store;
    if (!store || store.count === 0) return;
    const [first, last] = this.rangeAt(this.scrollTopFor(index, align), store.count);
    const seqs = [];
    for (let k = first; k <= last; k++) seqs.push(store.seqAt(k));
    store.want(seqs);
  }

  /// The first and last index rendered with the list scrolled to `top` (with the overscan).
  rangeAt(top, count) {
    const view = this.viewport.clientHeight || 600;
    return [Math.max(0, Math.floor(top / ROW) - OVERSCAN), Math.min(count - 1, Math.ceil((top + view) / ROW) + OVERSCAN)];
  }

  atEnd() {
    return this.viewport.scrollTop + this.viewport.clientHeight >= this.spacer.offsetHeight - ROW * 2;
  }

  visibleRange() {
    const first = Math.floor(this.viewport.scrollTop / ROW);
    return [first, first + Math.ceil(this.viewport.clientHeight / ROW)];
  }

  render() {
    const store = this.store;
    const count = store ? store.count : 0;
    const height = count * ROW;
    if (this.spacer.style.height !== `${height}px`) this.spacer.style.height = `${height}px`;
    const [first, last] = this.rangeAt(this.viewport.scrollTop, count);
    const needed = Math.max(0, last - first + 1);
    while (this.rows.length < needed) this.rows.push(this.makeRow());
    if (store && needed > 0) {
      const seqs = [];
      for (let index = first; index <= last; index++) seqs.push(store.seqAt(index));
      store.want(seqs);
    }
    for (let k = 0; k < this.rows.length; k++) {
      const row = this.rows[k];
      if (k >= needed) { if (!row.hidden) row.hidden = true; continue; }
      row.hidden = false;
      const index = first + k;
      this.fill(row, index, store.seqAt(index));
    }
  }

  makeRow() {
    const row = document.createElement('div');
    row.className = 'row';
    const parts = {};
    for (const name of ['seq', 'type', 'hint', 'marks', 'cause', 'duration', 'time']) {
      const span = document.createElement('span');
      span.className = name;
      row.append(span);
      parts[name] = span;
    }
    row.parts = parts;
    this.spacer.append(row);
    return row;
  }

  fill(row, index, seq) {
    const event = this.store.get(seq);
    const key = `${index}:${seq}:${event ? 1 : 0}:${this.selected === seq}:${this.compare === seq}`;
    if (row.key === key) return;
    row.key = key;
    row.style.transform = `translateY(${index * ROW}px)`;
    row.dataset.seq = seq;
    row.classList.toggle('selected', this.selected === seq);
    row.classList.toggle('compare', this.compare === seq);
    row.classList.toggle('loading', !event);
    const p = row.parts;
    p.seq.textContent = seq;
    if (!event) {
      p.type.textContent = '…';
      p.hint.textContent = p.marks.textContent = p.cause.textContent = p.duration.textContent = p.time.textContent = '';
      row.removeAttribute('title');
      return;
    }
    p.type.textContent = event.actionType || '';
    // `@@rewind/crashed` (the app died of a signal): the row is marked, its hint says how.
    const crashed = event.actionType === '@@rewind/crashed' && event.action && typeof event.action === 'object';
    row.classList.toggle('crashed', crashed);
    if (crashed) {
      p.hint.textContent = crashText(event.action);
      p.hint.title = p.hint.textContent;
      p.marks.textContent = p.cause.textContent = '';
      p.duration.textContent = '';
      p.type.title = 'the app crashed here: the recording ends with the crash';
      p.time.textContent = this.handlers.time(event.at);
      return;
    }
    // `@@rewind/skipped` (a branch's left-out action) hints at the action it left out.
    const skipped = event.actionType === '@@rewind/skipped' && event.action && typeof event.action === 'object' ? event.action.action : undefined;
    p.hint.textContent = event.seq === 0 ? '' : skipped !== undefined
      ? `${actionTypeOf(skipped)} ${payloadHint(skipped)}`.trim() : payloadHint(event.action);
    p.hint.title = p.hint.textContent;
    p.marks.textContent = event.coalesced ? '≈' : '';
    p.marks.title = event.coalesced ? 'coalesced: the app skipped recording the states before this one' : '';
    if (event.cause !== undefined && event.cause !== null) {
      p.cause.textContent = `← ${event.cause}`;
      p.cause.dataset.cause = event.cause;
      p.cause.title = `caused by the effect of #${event.cause}; click to go there`;
    } else {
      p.cause.textContent = '';
      delete p.cause.dataset.cause;
      p.cause.title = '';
    }
    p.duration.textContent = formatDuration(event.durationNs);
    p.type.title = event.site ? `sent at ${siteText(event.site)} ${event.site.function}` : '';
    p.time.textContent = this.handlers.time(event.at);
  }

  /// Rows drawn now (the DOM never holds more than the window and its overscan).
  domRowCount() { return this.rows.filter((r) => !r.hidden).length; }
}

