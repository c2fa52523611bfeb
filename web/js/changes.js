// The diff and blame panes: each change as a path with its value before and after.

import { hasKey, parsePointer } from './patch.js';

/// A value as compact JSON, cut at `max` characters: a diff line shows what an object holds.
function preview(value, max) {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/// One line per operation of `patch` (RFC 6902). `befores[i]` is the value at op i's path just
/// before it applies, when the caller could work it out; else the value comes from `inverse`.
export function renderDiff(container, patch, inverse, after, befores) {
  const before = new Map();
  for (const op of inverse || []) if (hasKey(op, 'value') && !before.has(op.path)) before.set(op.path, op.value);
  const list = el('div', 'changes');
  if (!patch.length) list.append(el('div', 'empty', 'No change: this action left the state as it was.'));
  for (const [i, op] of patch.entries()) {
    const kindName = op.op === 'add' ? 'added' : op.op === 'remove' ? 'removed' : op.op === 'replace' ? 'changed' : op.op;
    const line = el('div', `change ${kindName}`);
    line.dataset.path = op.path;
    line.dataset.kind = kindName;
    line.append(el('span', 'badge', kindName), el('span', 'path', op.path || '/'));
    const b = befores ? befores[i] : before.get(op.path), a = hasKey(op, 'value') ? op.value : after(op.path);
    const values = el('div', 'values');
    if (kindName !== 'added') values.append(el('span', 'before', preview(b, 200)));
    if (kindName === 'changed') values.append(el('span', 'arrow', '→'));
    if (kindName !== 'removed') values.append(el('span', 'after', preview(a, 200)));
    if (op.from !== undefined) values.append(el('span', 'from', `from ${op.from}`));
    line.append(values);
    list.append(line);
  }
  container.replaceChildren(list);
}

/// Every action that changed `path`; a click on one calls `go(seq)`.
export function renderBlame(container, path, entries, go) {
  const list = el('div', 'changes');
  list.append(el('div', 'caption', `${entries.length} action${entries.length === 1 ? '' : 's'} changed ${path || '/'}`));
  for (const entry of entries) {
    const line = el('div', 'change blame');
    line.dataset.seq = entry.seq;
    line.append(el('span', 'seq', `#${entry.seq}`), el('span', 'type', entry.actionType || ''));
    const values = el('div', 'values');
    // As `rewind blame` prints it: `+ value` where the value appeared, `- value` where it went.
    if (entry.change === 'added') values.append(el('span', 'after', `+ ${preview(entry.after, 120)}`));
    else if (entry.change === 'removed') values.append(el('span', 'before', `- ${preview(entry.before, 120)}`));
    else values.append(el('span', 'before', preview(entry.before, 120)), el('span', 'arrow', '→'), el('span', 'after', preview(entry.after, 120)));
    line.append(values);
    line.addEventListener('click', () => go(entry.seq));
    list.append(line);
  }
  container.replaceChildren(list);
}

export { parsePointer };
