// JSON Pointer (RFC 6901) and an in-place JSON Patch (RFC 6902) for stepping the page's state.
//
// State keys are data, so every object access here is by own property: a plain `node[key]` with
// a key such as `__proto__` would read or set the object's prototype (and `node.__proto__.x = …`
// would change Object.prototype itself) instead of the key the server's state has.

const own = (node, key) => Object.prototype.hasOwnProperty.call(node, key);

/// The value under `key` of an object or array, or undefined when it has no such own member.
export function child(node, key) {
  if (Array.isArray(node)) return node[Number(key)];
  return own(node, key) ? node[key] : undefined;
}

/// Sets `key` on `node` as an ordinary own data property, whatever the key's name.
export function setKey(node, key, value) {
  Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
}

export { own as hasKey };

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
    node = child(node, token);
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
    node = child(node, token);
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
    setKey(node, key, value);
  }
  return doc;
}

function take(doc, path) {
  const { node, key } = parentOf(doc, path);
  if (Array.isArray(node)) return node.splice(Number(key), 1)[0];
  if (!own(node, key)) throw new Error(`nothing at ${path}`);
  const value = node[key];
  delete node[key];   // deletes only an own property: the prototype is never touched
  return value;
}
