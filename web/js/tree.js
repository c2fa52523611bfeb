// The state as a collapsible tree. Only expanded nodes have children in the DOM, and a big
// object or array shows its first CHUNK children until asked for more.

import { child, parsePointer, pointerOf, resolve } from './patch.js';

const CHUNK = 300;

/// The strings a recorder writes for the numbers JSON cannot hold (NaN, ±infinity). An event's
/// `nonFinite` lists where they stand for numbers; anywhere else they are plain strings.
export const NON_FINITE = new Set(['NaN', 'Infinity', '-Infinity']);

/// The pointers of `pointers` (an event's `nonFinite`: `/state/…`, `/action/…`) under `root`,
/// relative to it (`/state/a/b` under `/state` is `/a/b`).
export function pointersUnder(pointers, root) {
  const out = [];
  for (const pointer of pointers || []) {
    if (pointer === root) out.push('');
    else if (pointer.startsWith(root + '/')) out.push(pointer.slice(root.length));
  }
  return out;
}

export function preview(value, max = 80) {
  if (value === undefined) return '(absent)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.length}]`;
  if (typeof value === 'object') return `{${Object.keys(value).length}}`;
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function kind(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export class StateTree {
  /// `rootLabel` names the root row: `(state)`, or `(action)` for an action's payload.
  constructor(container, onSelect, { rootLabel = '(state)' } = {}) {
    this.container = container;
    this.onSelect = onSelect;
    this.rootLabel = rootLabel;
    this.nonFinite = new Set();
    this.expanded = new Set(['']);
    this.limits = new Map();
    this.selected = null;
    this.changed = new Set();
    this.state = undefined;
    container.addEventListener('click', (e) => this.click(e));
  }

  click(e) {
    const row = e.target.closest('.node');
    if (!row) return;
    const pointer = row.dataset.pointer;
    if (row.classList.contains('more')) {
      this.limits.set(pointer, (this.limits.get(pointer) || CHUNK) + CHUNK * 4);
      this.render(this.state);
      return;
    }
    if (e.target.classList.contains('toggle')) {
      if (this.expanded.has(pointer)) this.expanded.delete(pointer); else this.expanded.add(pointer);
      this.render(this.state);
      return;
    }
    this.select(pointer);
  }

  select(pointer) {
    this.selected = pointer;
    for (const el of this.container.querySelectorAll('.node.selected')) el.classList.remove('selected');
    const row = this.container.querySelector(`.node[data-pointer="${CSS.escape(pointer)}"]`);
    if (row) row.classList.add('selected');
    this.onSelect(pointer);
  }

  /// Opens every ancestor of `pointer`, selects it and scrolls it into view.
  reveal(pointer) {
    const tokens = parsePointer(pointer);
    for (let i = 0; i < tokens.length; i++) this.expanded.add(pointerOf(tokens.slice(0, i)));
    const parent = pointerOf(tokens.slice(0, -1));
    const container = resolve(this.state, parent);
    if (Array.isArray(container)) {
      const need = Number(tokens[tokens.length - 1]) + 1;
      if (need > (this.limits.get(parent) || CHUNK)) this.limits.set(parent, need + CHUNK);
    }
    this.render(this.state);
    this.select(pointer);
    const row = this.container.querySelector('.node.selected');
    if (row) row.scrollIntoView({ block: 'nearest' });
  }

  /// Where the values shown are numbers JSON cannot hold (pointers relative to the root): those
  /// strings are shown as the numbers they stand for, marked.
  setNonFinite(pointers) {
    this.nonFinite = new Set(pointers || []);
  }

  /// Paths the selected action changed, marked in the tree (ancestors too).
  setChanged(operations) {
    this.changed = new Set();
    for (const op of operations || []) {
      const tokens = parsePointer(op.path);
      for (let i = 0; i <= tokens.length; i++) this.changed.add(pointerOf(tokens.slice(0, i)));
    }
  }

  render(state) {
    this.state = state;
    const fragment = document.createDocumentFragment();
    if (state === undefined) {
      this.container.replaceChildren();
      return;
    }
    this.row(fragment, '', this.rootLabel, state, 0);
    this.container.replaceChildren(fragment);
  }

  row(parent, pointer, key, value, depth) {
    const row = document.createElement('div');
    row.className = 'node';
    row.dataset.pointer = pointer;
    row.style.setProperty('--depth', depth);
    const isContainer = value !== null && typeof value === 'object';
    const open = isContainer && this.expanded.has(pointer);
    const toggle = document.createElement('span');
    toggle.className = 'toggle';
    toggle.textContent = isContainer ? (open ? '▾' : '▸') : '';
    const name = document.createElement('span');
    name.className = 'key';
    name.textContent = key;
    const shown = document.createElement('span');
    shown.className = 'value ' + kind(value);
    shown.textContent = preview(value, 120);
    row.append(toggle, name, shown);
    if (!isContainer && this.nonFinite.has(pointer) && NON_FINITE.has(value)) {
      // A number JSON cannot hold, recorded as a string: shown as the number, and marked.
      shown.className = 'value number nonfinite';
      shown.textContent = value;
      const mark = document.createElement('span');
      mark.className = 'nonfinite-mark';
      mark.textContent = 'not finite';
      mark.title = `the app's number was ${value}; JSON has no such number, so it is recorded as the string "${value}" (the event's nonFinite says where)`;
      row.append(mark);
      row.classList.add('nonfinite');
    }
    if (this.changed.has(pointer)) row.classList.add('changed');
    if (pointer === this.selected) row.classList.add('selected');
    parent.append(row);
    if (!open) return;
    // Object.keys lists own keys only, `__proto__` included when the state has one (JSON.parse
    // makes it an own key); `child` reads them the same way.
    const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    const limit = this.limits.get(pointer) || CHUNK;
    for (const k of keys.slice(0, limit)) this.row(parent, pointer + '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1'), String(k), child(value, k), depth + 1);
    if (keys.length > limit) {
      const more = document.createElement('div');
      more.className = 'node more';
      more.dataset.pointer = pointer;
      more.style.setProperty('--depth', depth + 1);
      more.textContent = `… ${keys.length - limit} more (click to show)`;
      parent.append(more);
    }
  }
}

/// Paths whose key or value contains `query` (case-insensitive), at most `max`, visiting a
/// bounded number of nodes so a huge state never freezes the page.
export function search(state, query, max = 200, budget = 300000) {
  const q = query.toLowerCase();
  const found = [];
  const stack = [['', state, '']];
  while (stack.length && found.length < max && budget-- > 0) {
    const [pointer, value, key] = stack.pop();
    const isContainer = value !== null && typeof value === 'object';
    if (key.toLowerCase().includes(q) || (!isContainer && String(value).toLowerCase().includes(q))) found.push(pointer);
    if (isContainer) {
      const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push([pointer + '/' + keys[i].replace(/~/g, '~0').replace(/\//g, '~1'), child(value, keys[i]), keys[i]]);
      }
    }
  }
  return found;
}
