// The state pane's tools and the changes pane's tabs: path selection, copy, blame, search, the
// tree/raw switch, "Find in history", and the Diff/Blame/Find tabs.

import { renderBlame } from './changes.js';
import { resolve } from './patch.js';
import { search, preview } from './tree.js';
import { setupShouldBe } from './shouldbe.js';
import { setupPlot } from './plot.js';

const $ = (id) => document.getElementById(id);

/// Wires the pane; `ctx` holds page, tree, connection, select(seq, source, options), say(text,
/// bad) and renderState(). Returns what the rest of the page calls.
export function setupStatePane(ctx) {
  const { page, tree, connection, select, say } = ctx;

  function pathSelected(pointer) {
    $('selected-path').textContent = pointer || '/ (the whole state)';
    for (const id of ['copy-path', 'copy-value', 'blame', 'find-open', 'should-open']) $(id).disabled = false;
    // Plot draws numbers only.
    $('plot-add').disabled = !page.timeline || typeof resolve(page.timeline.state, pointer ?? '') !== 'number';
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

  const shouldBe = setupShouldBe({ page, tree, say, copy });
  const plot = setupPlot({ page, connection, select, say });
  $('plot-add').addEventListener('click', () => {
    showTab('plot');
    plot.add(tree.selected ?? '');
  });

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

  // Find in history: the selected path filled in, the condition chosen, the hits listed in the
  // Find tab, each one a click away.
  $('find-open').addEventListener('click', () => {
    $('find-box').hidden = false;
    $('find-path').value = tree.selected ?? '';
    $('find-value').focus();
  });
  const needsValue = () => ['is', 'isNot', 'gt', 'lt', 'matches'].includes($('find-condition').value);
  $('find-condition').addEventListener('change', () => { $('find-value').disabled = !needsValue(); });
  $('find-box').addEventListener('submit', (event) => {
    event.preventDefault();
    if (!page.current) return;
    const condition = $('find-condition').value;
    const text = $('find-value').value.trim();
    const request = { type: 'find', session: page.current.uuid, path: $('find-path').value, all: $('find-all').checked };
    if (!needsValue()) {
      request[condition] = true;
    } else if (condition === 'gt' || condition === 'lt') {
      const number = Number(text);
      if (text === '' || !Number.isFinite(number)) { say(`find: "${text}" is not a number`, true); return; }
      request[condition] = number;
    } else if (condition === 'matches') {
      request.matches = text;
    } else {
      try { request[condition] = JSON.parse(text); } catch {
        say(`find: ${text === '' ? 'give a value' : `${text} is not JSON`} (a string needs its quotes: "done")`, true);
        return;
      }
    }
    const store = page.store;
    const view = $('find-view');
    view.replaceChildren();
    view.dataset.state = 'loading';
    showTab('find');
    connection.request(request).then((reply) => {
      if (page.store !== store) return;
      renderFind(view, reply);
    }).catch((error) => {
      view.dataset.state = 'error';
      say(`find: ${error.message}`, true);
    });
  });

  function renderFind(view, reply) {
    const head = document.createElement('div');
    head.className = 'muted find-head';
    const count = reply.hits.length;
    const scope = reply.complete ? `all ${(reply.lastSeq + 1).toLocaleString()} states` : `up to #${reply.scannedThrough} (${reply.stoppedBecause})`;
    head.textContent = `${count.toLocaleString()} ${count === 1 ? 'hit' : 'hits'} at ${reply.path || '/'} in ${scope}`;
    const rows = reply.hits.map((hit) => {
      const row = document.createElement('div');
      row.className = 'change find-hit';
      row.dataset.seq = hit.seq;
      row.dataset.event = hit.event;
      const seq = document.createElement('span');
      seq.className = 'seq';
      seq.textContent = `#${hit.seq}`;
      const what = document.createElement('span');
      what.className = 'event';
      what.textContent = `${hit.event} · ${hit.actionType}`;
      const value = document.createElement('div');
      value.className = 'values';
      const shown = (exists, v) => (exists ? preview(v) : '(missing)');
      value.textContent = hit.event === 'changed'
        ? `${preview(hit.previous)} → ${shown(hit.exists, hit.value)}`
        : shown(hit.exists, hit.value);
      row.append(seq, what, value);
      row.addEventListener('click', () => select(hit.seq, 'click', { center: true }));
      return row;
    });
    view.replaceChildren(head, ...rows);
    view.dataset.state = 'ready';
    view.dataset.count = count;
  }

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
    $('tab-find').classList.toggle('on', tab === 'find');
    $('tab-plot').classList.toggle('on', tab === 'plot');
    $('tab-action').classList.toggle('on', tab === 'action');
    $('tab-original').classList.toggle('on', tab === 'original');
    $('original-view').hidden = tab !== 'original';
    $('action-view').hidden = tab !== 'action';
    $('diff').hidden = tab !== 'diff';
    $('blame-view').hidden = tab !== 'blame';
    $('find-view').hidden = tab !== 'find';
    $('plot-view').hidden = tab !== 'plot';
  }
  $('tab-diff').addEventListener('click', () => showTab('diff'));
  $('tab-blame').addEventListener('click', () => showTab('blame'));
  $('tab-find').addEventListener('click', () => showTab('find'));
  $('tab-plot').addEventListener('click', () => showTab('plot'));
  $('tab-action').addEventListener('click', () => { showTab('action'); ctx.renderAction(); });
  $('tab-original').addEventListener('click', () => { showTab('original'); ctx.renderOriginal(); });

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

  function sessionOpened() {
    shouldBe.sessionOpened();
    plot.sessionOpened();
  }

  return { pathSelected, setView, showTab, runSearch, sessionOpened };
}
