// The Plot tab: numbers of the state drawn across the session. Each path the user adds (a number
// selected in the state tree, then Plot) becomes a series of points, one per action that changed
// it (the server's `find` with `changed`, what `rewind find --changed` prints), joined as steps
// (a value holds until the next change). Several paths share the chart and its scales. A point's
// title says its seq, action type and value; a click on it selects that seq.

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 56, right: 12, top: 10, bottom: 22 };
/// The most paths one chart draws; each a colour of its own (style.css, .plot-series-N).
export const MAX_SERIES = 4;

/// Wires the tab; `ctx` holds page, connection, select(seq, source, options), say(text, bad).
export function setupPlot(ctx) {
  const { page, connection, select, say } = ctx;
  const view = document.getElementById('plot-view');
  /// The plotted paths, in the order added, each with its points: {path, points, complete}.
  let series = [];
  let store = null;

  /// Adds `path` (a number in the state shown) to the chart, reading where it changed.
  async function add(path) {
    if (!page.current) return;
    if (page.store !== store) { series = []; store = page.store; }
    if (series.some((s) => s.path === path)) { render(); return; }
    if (series.length >= MAX_SERIES) { say(`plot: at most ${MAX_SERIES} paths share the chart; remove one first`, true); return; }
    const asked = page.store;
    view.dataset.state = 'loading';
    try {
      const reply = await connection.request({ type: 'find', session: page.current.uuid, path, changed: true, all: true });
      if (page.store !== asked) return;
      const points = reply.hits
        .filter((hit) => hit.exists && typeof hit.value === 'number')
        .map((hit) => ({ seq: hit.seq, value: hit.value, actionType: hit.actionType }));
      series.push({ path: reply.path, points, complete: reply.complete, lastSeq: reply.lastSeq });
      render();
    } catch (error) {
      view.dataset.state = 'error';
      say(`plot: ${error.message}`, true);
    }
  }

  function remove(path) {
    series = series.filter((s) => s.path !== path);
    render();
  }

  /// Forgets the chart when another session opens.
  function sessionOpened() {
    series = [];
    store = page.store;
    render();
  }

  function render() {
    view.replaceChildren();
    view.dataset.series = series.length;
    if (!series.length) {
      const hint = document.createElement('div');
      hint.className = 'muted plot-hint';
      hint.textContent = 'select a number in the state, then Plot: its value across the session, one point per action that changed it';
      view.append(hint);
      view.dataset.state = 'empty';
      return;
    }
    const legend = document.createElement('div');
    legend.className = 'plot-legend';
    series.forEach((s, index) => {
      const item = document.createElement('span');
      item.className = `plot-key plot-series-${index}`;
      item.dataset.path = s.path;
      const name = document.createElement('code');
      name.textContent = `${s.path} (${s.points.length} ${s.points.length === 1 ? 'change' : 'changes'}${s.complete ? '' : ', the first ones'})`;
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'plot-remove';
      close.textContent = '×';
      close.title = `remove ${s.path} from the chart`;
      close.addEventListener('click', () => remove(s.path));
      item.append(name, close);
      legend.append(item);
    });
    view.append(legend, chart());
    view.dataset.state = 'ready';
  }

  function chart() {
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
    svg.setAttribute('class', 'plot-chart');
    svg.setAttribute('role', 'img');
    const lastSeq = Math.max(1, ...series.map((s) => s.lastSeq ?? 0));
    const values = series.flatMap((s) => s.points.map((p) => p.value));
    let low = Math.min(...values), high = Math.max(...values);
    if (!Number.isFinite(low)) { low = 0; high = 1; }
    if (low === high) { low -= 1; high += 1; }
    const x = (seq) => PAD.left + (seq / lastSeq) * (WIDTH - PAD.left - PAD.right);
    const y = (value) => HEIGHT - PAD.bottom - ((value - low) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
    const axis = (x1, y1, x2, y2) => {
      const line = document.createElementNS(SVG, 'line');
      for (const [k, v] of Object.entries({ x1, y1, x2, y2 })) line.setAttribute(k, v);
      line.setAttribute('class', 'plot-axis');
      return line;
    };
    const label = (text, lx, ly, anchor) => {
      const t = document.createElementNS(SVG, 'text');
      t.setAttribute('x', lx);
      t.setAttribute('y', ly);
      t.setAttribute('text-anchor', anchor);
      t.setAttribute('class', 'plot-label');
      t.textContent = text;
      return t;
    };
    svg.append(axis(PAD.left, PAD.top, PAD.left, HEIGHT - PAD.bottom), axis(PAD.left, HEIGHT - PAD.bottom, WIDTH - PAD.right, HEIGHT - PAD.bottom),
      label(String(high), PAD.left - 4, PAD.top + 8, 'end'), label(String(low), PAD.left - 4, HEIGHT - PAD.bottom, 'end'),
      label('#0', PAD.left, HEIGHT - 6, 'start'), label(`#${lastSeq}`, WIDTH - PAD.right, HEIGHT - 6, 'end'));
    series.forEach((s, index) => {
      const group = document.createElementNS(SVG, 'g');
      group.setAttribute('class', `plot-series plot-series-${index}`);
      group.dataset.path = s.path;
      // Steps: each value holds until the next change, the last one to the session's end.
      let d = '';
      s.points.forEach((p, i) => {
        const next = i + 1 < s.points.length ? s.points[i + 1].seq : lastSeq;
        d += `${i === 0 ? 'M' : 'L'}${x(p.seq).toFixed(1)},${y(p.value).toFixed(1)} H${x(next).toFixed(1)} `;
      });
      const path = document.createElementNS(SVG, 'path');
      path.setAttribute('d', d.trim());
      path.setAttribute('class', 'plot-line');
      group.append(path);
      for (const p of s.points) {
        const dot = document.createElementNS(SVG, 'circle');
        dot.setAttribute('cx', x(p.seq).toFixed(1));
        dot.setAttribute('cy', y(p.value).toFixed(1));
        dot.setAttribute('r', '4');
        dot.setAttribute('class', 'plot-point');
        dot.dataset.seq = p.seq;
        dot.dataset.value = p.value;
        const title = document.createElementNS(SVG, 'title');
        title.textContent = `#${p.seq} ${p.actionType}: ${s.path} = ${p.value}`;
        dot.append(title);
        dot.addEventListener('click', () => select(p.seq, 'click', { center: true }));
        group.append(dot);
      }
      svg.append(group);
    });
    return svg;
  }

  render();
  return { add, sessionOpened };
}
