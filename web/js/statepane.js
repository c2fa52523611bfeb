// The state pane's tools and the changes pane's tabs: path selection, copy, blame, search, the
// tree/raw switch and the Diff/Blame tabs.

import { renderBlame } from './changes.js';
import { resolve } from './patch.js';
import { search, preview } from './tree.js';

const $ = (id) => document.getElementById(id);

/// Wires the pane; `ctx` holds page, tree, connection, select(seq, source, options), say(text,
/// bad) and renderState(). Returns what the rest of the page calls.
export function setupStatePane(ctx) {
  const { page, tree, connection, select, say } = ctx;

  function pathSelected(pointer) {
    $('selected-path').textContent = pointer || '/ (the whole state)';
    for (const id of ['copy-path', 'copy-value', 'blame']) $(id).disabled = false;
  }

  function copy(text) {
    const done = () => say('copied');
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => copyFallback(text, done));
    } else {
      copyFallback(text, done);
    }
  }

  function copyFallback(text, done) {
    const area = document.createElement('textarea');
    area.value = text;
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    try { document.execCommand('copy'); done(); } catch { say('copy failed: the browser refused the clipboard', true); }
    area.remove();
  }

  $('copy-path').addEventListener('click', () => copy(tree.selected ?? ''));
  $('copy-value').addEventListener('click', () => copy(JSON.stringify(resolve(page.timeline.state, tree.selected ?? ''), null, 2) ?? 'undefined'));
  $('blame').addEventListener('click', () => {
    const path = tree.selected ?? '';
    const store = page.store;
    $('blame-view').replaceChildren();
    showTab('blame');
    connection.request({ type: 'blame', session: page.current.uuid, path }).then((reply) => {
      if (page.store !== store) return;
      renderBlame($('blame-view'), reply.path, reply.entries, (seq) => select(seq, 'click', { center: true }));
      $('blame-view').dataset.path = reply.path;
    }).catch((error) => say(`blame: ${error.message}`, true));
  });

  function setView(view) {
    page.view = view;
    $('view-tree').classList.toggle('on', view === 'tree');
    $('view-raw').classList.toggle('on', view === 'raw');
    $('tree').hidden = view !== 'tree';
    $('raw').hidden = view !== 'raw';
    if (page.timeline && page.timeline.seq !== null) ctx.renderState();
  }
  $('view-tree').addEventListener('click', () => setView('tree'));
  $('view-raw').addEventListener('click', () => setView('raw'));

  function showTab(tab) {
    page.tab = tab;
    $('tab-diff').classList.toggle('on', tab === 'diff');
    $('tab-blame').classList.toggle('on', tab === 'blame');
    $('diff').hidden = tab !== 'diff';
    $('blame-view').hidden = tab !== 'blame';
  }
  $('tab-diff').addEventListener('click', () => showTab('diff'));
  $('tab-blame').addEventListener('click', () => showTab('blame'));

  let searchTimer = 0;
  function runSearch() {
    const query = $('tree-search').value.trim();
    const box = $('search-results');
    if (!query || !page.timeline || page.timeline.state === undefined) { box.hidden = true; box.replaceChildren(); return; }
    const found = search(page.timeline.state, query);
    const items = found.map((pointer) => {
      const item = document.createElement('div');
      item.className = 'result';
      item.dataset.pointer = pointer;
      const path = document.createElement('code');
      path.textContent = pointer || '/';
      const value = document.createElement('span');
      value.className = 'muted';
      value.textContent = ' ' + preview(resolve(page.timeline.state, pointer), 60);
      item.append(path, value);
      return item;
    });
    if (!items.length) { const none = document.createElement('div'); none.className = 'muted'; none.textContent = 'no match'; items.push(none); }
    box.replaceChildren(...items);
    box.hidden = false;
  }
  $('tree-search').addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 120); });
  $('search-results').addEventListener('click', (e) => {
    const item = e.target.closest('.result');
    if (!item) return;
    if (page.view !== 'tree') setView('tree');
    tree.reveal(item.dataset.pointer);
  });

  return { pathSelected, setView, showTab, runSearch };
}
