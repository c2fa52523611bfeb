// JSON Pointer (RFC 6901) and an in-place JSON Patch (RFC 6902) for stepping the page's state.

export function parsePointer(pointer) {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function pointerOf(tokens) {
  return tokens.map((t) => '/' + String(t).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function resolve(doc, pointer) {
  let node = doc;
  for (const token of parsePointer(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    if (Array.isArray(node)) {
      node = node[Number(token)];
    } else {
      if (!Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = node[token];
    }
  }
  return node;
}

const clone = (value) => (value === null || typeof value !== 'object' ? value : structuredClone(value));

/// Applies `operations` to `doc` and returns the new document (the same object unless the
/// root is replaced). Values are copied in, so later steps never change a cached event.
export function applyPatch(doc, operations) {
  for (const op of operations) doc = applyOne(doc, op);
  return doc;
}

function parentOf(doc, path) {
  const tokens = parsePointer(path);
  const last = tokens.pop();
  let node = doc;
  for (const token of tokens) {
    node = Array.isArray(node) ? node[Number(token)] : node[token];
    if (node === null || typeof node !== 'object') throw new Error(`no parent for ${path}`);
  }
  return { node, key: last };
}

function applyOne(doc, op) {
  switch (op.op) {
    case 'add': return put(doc, op.path, clone(op.value), true);
    case 'replace': return put(doc, op.path, clone(op.value), false);
    case 'remove': { take(doc, op.path); return doc; }
    case 'move': { const v = take(doc, op.from); return put(doc, op.path, v, true); }
    case 'copy': return put(doc, op.path, clone(resolve(doc, op.from)), true);
    case 'test': return doc;
    default: throw new Error(`unknown op ${op.op}`);
  }
}

function put(doc, path, value, insert) {
  if (path === '') return value;
  const { node, key } = parentOf(doc, path);
  if (Array.isArray(node)) {
    const index = key === '-' ? node.length : Number(key);
    if (insert) node.splice(index, 0, value); else node[index] = value;
  } else {
    node[key] = value;
  }
  return doc;
}

function take(doc, path) {
  const { node, key } = parentOf(doc, path);
  if (Array.isArray(node)) return node.splice(Number(key), 1)[0];
  const value = node[key];
  delete node[key];
  return value;
}
