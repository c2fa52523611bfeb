// "This should be…": on a value of the state tree, the value it should have been, and the
// `rewind test … --expect SEQ:POINTER=JSON` command that turns the recorded bug into a test that
// fails until the bug is fixed (Docs/Integrating.md, "A recorded bug becomes a test"). The values
// added for the open session accumulate into one command; the reducer, module and folder are kept
// per app in the browser's storage.

import { resolve } from './patch.js';

const $ = (id) => document.getElementById(id);

/// What the shell takes as one word: the CLI's own rule (TestCommand.shellQuoted).
export function shellQuoted(word) {
  return word !== '' && /^[A-Za-z0-9\-_./:@=,]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/// The command for `expectations` ([{seq, pointer, json}]) of `session` ({id, app}).
export function testCommand(session, expectations, fields, server) {
  const words = ['rewind', 'test', String(session.id), `--${fields.kind}`, fields.symbol || 'SYMBOL'];
  if (fields.module) words.push('--module', fields.module);
  words.push('-o', fields.output || 'Tests/AppTests', '--server', server);
  for (const e of expectations) words.push('--expect', `${e.seq}:${e.pointer}=${e.json}`);
  return words.map(shellQuoted).join(' ');
}

/// Wires the box; `ctx` holds page, tree, say(text, bad) and copy(text).
export function setupShouldBe(ctx) {
  const { page, tree, say, copy } = ctx;
  let session = null;      // the session the expectations are for
  let expectations = [];
  const server = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}`;

  const storageKey = () => `rewind.test.${page.current ? page.current.app : ''}`;
  function loadFields() {
    let saved = {};
    try { saved = JSON.parse(localStorage.getItem(storageKey()) || '{}'); } catch { saved = {}; }
    $('should-kind').value = saved.kind === 'step' ? 'step' : 'reducer';
    $('should-symbol').value = saved.symbol || '';
    $('should-module').value = saved.module || '';
    $('should-output').value = saved.output || '';
  }
  function fields() {
    return { kind: $('should-kind').value, symbol: $('should-symbol').value.trim(),
             module: $('should-module').value.trim(), output: $('should-output').value.trim() };
  }
  function saveFields() {
    try { localStorage.setItem(storageKey(), JSON.stringify(fields())); } catch { /* storage refused: nothing kept */ }
  }

  function render() {
    const shown = expectations.length > 0 && page.current;
    $('should-command-row').hidden = !shown;
    // One span a word, each kept whole on its line (a browser would break `--server` at its
    // hyphen); the text, and so what is copied, is the command as it is.
    const words = shown ? testCommand(page.current, expectations, fields(), server).split(' ') : [];
    $('should-command').replaceChildren(...words.flatMap((word, index) => {
      const span = document.createElement('span');
      span.className = 'word';
      span.textContent = word;
      return index ? [' ', span] : [span];
    }));
    $('should-box').dataset.count = expectations.length;
  }

  /// The selected seq and path, or why there is none to expect a value at.
  function target() {
    const seq = page.timeline ? page.timeline.seq : null;
    if (seq === null || seq === undefined) return { problem: 'select an action first' };
    if (seq < 1) return { problem: 'seq 0 is the initial state, not an action: select the action whose state is wrong' };
    return { seq, pointer: tree.selected ?? '' };
  }

  $('should-open').addEventListener('click', () => {
    if (!page.current) return;
    if (session !== page.current.uuid) { session = page.current.uuid; expectations = []; }
    const at = target();
    if (at.problem) { say(`This should be…: ${at.problem}`, true); return; }
    loadFields();
    $('should-box').hidden = false;
    $('should-where').textContent = `At #${at.seq} ${at.pointer || '/ (the whole state)'}, this should be`;
    $('should-box').dataset.seq = at.seq;
    $('should-box').dataset.pointer = at.pointer;
    const value = resolve(page.timeline.state, at.pointer);
    $('should-value').value = value === undefined ? '' : JSON.stringify(value);
    $('should-value').focus();
    $('should-value').select();
    render();
  });

  $('should-box').addEventListener('submit', (event) => {
    event.preventDefault();
    if (!page.current) return;
    const text = $('should-value').value.trim().replace(/\s*\n\s*/g, ' ');
    try { JSON.parse(text); } catch {
      say(`This should be…: ${text === '' ? 'give the right value' : `${text} is not JSON`} (a string needs its quotes: "done")`, true);
      return;
    }
    const seq = Number($('should-box').dataset.seq);
    const pointer = $('should-box').dataset.pointer;
    expectations = expectations.filter((e) => !(e.seq === seq && e.pointer === pointer));
    expectations.push({ seq, pointer, json: text });
    expectations.sort((a, b) => a.seq - b.seq);
    saveFields();
    render();
    say(`#${seq} ${pointer || '/'} should be ${text}: copy the command, run it in the app's package, then swift test`);
  });

  for (const id of ['should-kind', 'should-symbol', 'should-module', 'should-output']) {
    $(id).addEventListener('input', () => { saveFields(); render(); });
  }
  $('should-copy').addEventListener('click', () => copy($('should-command').textContent));
  $('should-clear').addEventListener('click', () => { expectations = []; render(); });

  /// A session opened: its expectations start empty, and the box closes.
  function sessionOpened() {
    if (page.current && session === page.current.uuid) return;
    session = page.current ? page.current.uuid : null;
    expectations = [];
    $('should-box').hidden = true;
    render();
  }

  return { sessionOpened };
}
