/* fusionplan HTML page (planner/io/plan_html.c, DESIGN section 20): draws the
 * plan JSON blocks of this page. Vanilla JavaScript, no library, no request.
 * Blocks: fp-graph (ops: name, type, inputs, shape, weights, cost alone),
 * fp-plan-0 .. fp-plan-N (each the plan's JSON export, as -o plan.json
 * writes it) and optionally fp-extra ({"kind": "curve", "steps": [...]}, or
 * {"kind": "report", ...} for the table pages of compare and sweep-report). */
(function () {
  'use strict';
  var t0 = performance.now();
  var NS = 'http://www.w3.org/2000/svg';
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message));
    var p = document.getElementById('fp-error') || document.body.appendChild(el('pre', {id: 'fp-error'}));
    p.textContent = 'page error: ' + errors.join('\n');
  });

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  function block(id) {
    var e = document.getElementById(id);
    return e ? JSON.parse(e.textContent) : null;
  }
  /* Bytes as people read them (1 KB = 1024 B, as the CLI prints) with the exact count. */
  function kb(b) {
    if (b === null || b === undefined) return '-';
    var a = Math.abs(b);
    var s = a >= 1048576 ? (b / 1048576).toFixed(2) + ' MB' : a >= 1024 ? (b / 1024).toFixed(1) + ' KB' : b + ' B';
    return s;
  }
  function num(x) { return x === null || x === undefined ? '-' : String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function si(x, unit) {
    if (x === null || x === undefined) return '-';
    var p = ['', 'k', 'M', 'G', 'T', 'P'], i = 0;
    while (Math.abs(x) >= 1000 && i < p.length - 1) { x /= 1000; i++; }
    var q = ['m', 'u', 'n', 'p'], j = -1;
    while (x !== 0 && Math.abs(x) < 1 && j < q.length - 1) { x *= 1000; j++; }
    return (+x.toPrecision(4)) + ' ' + (j >= 0 ? q[j] : p[i]) + unit;
  }
  function rows(pairs) {
    var h = '<table>';
    for (var i = 0; i < pairs.length; i++)
      if (pairs[i]) h += '<tr><td>' + esc(pairs[i][0]) + '</td><td>' + esc(pairs[i][1]) + '</td></tr>';
    return h + '</table>';
  }

  var extra = block('fp-extra');
  var G = block('fp-graph');
  if (!G) { report(extra); return; }
  var plans = [];
  for (var pi = 0; document.getElementById('fp-plan-' + pi); pi++) plans.push(block('fp-plan-' + pi));
  var ops = G.ops, n = ops.length;

  /* ---- layered layout, top to bottom -------------------------------------
   * Ops come in topological order (ids), so one pass gives each op the layer
   * one below its deepest input. Within a layer ops are ordered by the mean
   * position of their inputs (then of their consumers), then placed at that
   * mean and pushed apart: chains stay straight, branches sit side by side. */
  var NW = 150, NH = 34, GX = 24, GY = 56;
  var layer = new Int32Array(n), outs = [], nl = 0;
  for (var v = 0; v < n; v++) outs.push([]);
  for (v = 0; v < n; v++) {
    var L = 0, ins = ops[v].in;
    for (var i = 0; i < ins.length; i++) { L = Math.max(L, layer[ins[i]] + 1); outs[ins[i]].push(v); }
    /* A graph input sits just above its first reader, not at the top. */
    layer[v] = L;
    nl = Math.max(nl, L + 1);
  }
  for (v = n - 1; v >= 0; v--)
    if (ops[v].in.length === 0 && outs[v].length) {
      var m = 1e9;
      for (i = 0; i < outs[v].length; i++) m = Math.min(m, layer[outs[v][i]]);
      layer[v] = m - 1;
    }
  var layers = [];
  for (i = 0; i < nl; i++) layers.push([]);
  for (v = 0; v < n; v++) layers[layer[v]].push(v);
  var x = new Float64Array(n);
  for (i = 0; i < nl; i++) for (var j = 0; j < layers[i].length; j++) x[layers[i][j]] = j * (NW + GX);
  function mean(list, fallback) {
    if (!list.length) return fallback;
    var s = 0;
    for (var k = 0; k < list.length; k++) s += x[list[k]];
    return s / list.length;
  }
  function place(li, down) {
    var l = layers[li], want = [];
    for (var k = 0; k < l.length; k++) want.push(mean(down ? ops[l[k]].in : outs[l[k]], x[l[k]]));
    var idx = l.map(function (_, k) { return k; });
    idx.sort(function (a, b) { return want[a] - want[b] || l[a] - l[b]; });
    layers[li] = l = idx.map(function (k) { return layers[li][k]; });
    want = idx.map(function (k) { return want[k]; });
    var pos = want.slice();
    for (k = 1; k < l.length; k++) pos[k] = Math.max(pos[k], pos[k - 1] + NW + GX);
    var shift = 0;
    for (k = 0; k < l.length; k++) shift += pos[k] - want[k];
    shift /= l.length || 1;
    for (k = 0; k < l.length; k++) x[l[k]] = pos[k] - shift;
  }
  for (var pass = 0; pass < 3; pass++) {
    for (i = 1; i < nl; i++) place(i, true);
    for (i = nl - 2; i >= 0; i--) place(i, false);
  }
  for (i = 1; i < nl; i++) place(i, true);
  var minx = Infinity, maxx = -Infinity;
  for (v = 0; v < n; v++) { minx = Math.min(minx, x[v]); maxx = Math.max(maxx, x[v]); }
  var W = maxx - minx + NW + 40, H = nl * (NH + GY) + 40;
  function ox(v) { return x[v] - minx + 20; }
  function oy(v) { return layer[v] * (NH + GY) + 20; }

  /* ---- page -------------------------------------------------------------- */
  var head = el('header');
  document.body.appendChild(head);
  head.appendChild(el('h1', {}, extra && extra.kind === 'curve' ? document.title.replace(/ - fusionplan$/, '') : plans[0].model.name + ' \u2014 fusion plan'));
  var sumLine = head.appendChild(el('div', {'class': 'line', id: 'fp-summary'}));
  var hwLine = head.appendChild(el('div', {'class': 'line muted', id: 'fp-hw'}));
  var tools = head.appendChild(el('div', {'class': 'tools'}));
  var search = tools.appendChild(el('input', {type: 'search', id: 'fp-search', placeholder: 'search op name (Enter: next)'}));
  var hitInfo = tools.appendChild(el('span', {'class': 'muted'}));
  var fitBtn = tools.appendChild(el('button', {type: 'button'}, 'fit'));
  var topBtn = tools.appendChild(el('button', {type: 'button'}, 'top'));
  tools.appendChild(el('span', {'class': 'muted'}, 'drag to pan, wheel to zoom, hover for figures'));
  var curveBox = null, slider = null;
  if (extra && extra.kind === 'curve') {
    curveBox = el('div', {id: 'fp-curve'});
    slider = el('input', {type: 'range', id: 'fp-slider', min: 0, max: plans.length - 1, value: 0, step: 1});
  }
  if (curveBox) document.body.appendChild(curveBox);
  var main = document.body.appendChild(el('div', {id: 'fp-main'}));
  var view = main.appendChild(el('div', {id: 'fp-view'}));
  var side = main.appendChild(el('div', {id: 'fp-side'}));
  var bars = document.body.appendChild(el('div', {id: 'fp-bars'}));
  var card = document.body.appendChild(el('div', {id: 'fp-card'}));

  /* The graph: edges as one path, ops as groups of rect and text; clusters
   * are drawn behind them per plan (draw()). */
  var svg = document.createElementNS(NS, 'svg');
  view.appendChild(svg);
  var vp = document.createElementNS(NS, 'g');
  svg.appendChild(vp);
  var d = '';
  for (v = 0; v < n; v++)
    for (i = 0; i < ops[v].in.length; i++) {
      var u = ops[v].in[i], x1 = ox(u) + NW / 2, y1 = oy(u) + NH, x2 = ox(v) + NW / 2, y2 = oy(v), my = (y1 + y2) / 2;
      d += 'M' + x1 + ' ' + y1 + 'C' + x1 + ' ' + my + ' ' + x2 + ' ' + my + ' ' + x2 + ' ' + y2;
    }
  var h = '<g id="fp-clusters"></g><path class="edges" d="' + d + '"/><g id="fp-ops">';
  for (v = 0; v < n; v++) {
    var o = ops[v], nm = o.name.length > 24 ? o.name.slice(0, 23) + '\u2026' : o.name;
    h += '<g class="op' + (o.type === 'Input' || !o.alone ? ' inp' : o.fusable ? '' : ' unf') + '" data-op="' + v +
      '" data-name="' + esc(o.name) + '" transform="translate(' + ox(v) + ',' + oy(v) + ')"><rect width="' + NW +
      '" height="' + NH + '" rx="3"/><text x="5" y="13">' + esc(nm) + '</text><text class="t2" x="5" y="27">' +
      esc(o.type + ' ' + o.shape.slice(1).join('\u00d7')) + (o.alone && !o.fusable ? ' \u2716 unfusable' : '') + '</text></g>';
  }
  vp.innerHTML = h + '</g>';
  var clusters = vp.querySelector('#fp-clusters');
  var opEls = vp.querySelectorAll('.op');

  /* ---- pan and zoom: one transform on one group, cheap at any size ------- */
  var tx = 0, ty = 0, sc = 1;
  function apply() {
    vp.setAttribute('transform', 'translate(' + tx + ',' + ty + ') scale(' + sc + ')');
    svg.classList.toggle('far', sc < 0.35);
  }
  function fit(all) {
    var r = view.getBoundingClientRect();
    sc = all ? Math.min(r.width / W, r.height / H) : Math.min(0.7, r.width / W);
    tx = (r.width - W * sc) / 2;
    ty = 0;
    apply();
  }
  function centre(cx, cy) {
    var r = view.getBoundingClientRect();
    if (sc < 0.6) sc = 0.8;
    tx = r.width / 2 - cx * sc;
    ty = r.height / 2 - cy * sc;
    apply();
  }
  view.addEventListener('wheel', function (e) {
    e.preventDefault();
    var r = view.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
    var f = Math.exp(-e.deltaY * 0.0015), s2 = Math.max(0.02, Math.min(4, sc * f));
    tx = px - (px - tx) * s2 / sc;
    ty = py - (py - ty) * s2 / sc;
    sc = s2;
    apply();
  }, {passive: false});
  var drag = null;
  view.addEventListener('mousedown', function (e) { drag = [e.clientX - tx, e.clientY - ty]; view.classList.add('drag'); });
  window.addEventListener('mouseup', function () { drag = null; view.classList.remove('drag'); });
  window.addEventListener('mousemove', function (e) {
    if (drag) { tx = e.clientX - drag[0]; ty = e.clientY - drag[1]; apply(); }
  });
  fitBtn.onclick = function () { fit(true); };
  topBtn.onclick = function () { fit(false); };

  /* ---- one plan: summary, clusters, bars --------------------------------- */
  var P, groupOf, info; /* info[k]: the plan's entry of group k (groups[] or unfusable[]) */
  function hue(k) { return (200 + k * 137.508) % 360; }
  function draw(si_) {
    P = plans[si_];
    groupOf = P.group_of;
    info = [];
    P.groups.forEach(function (g) { info[g.id] = g; });
    P.unfusable.forEach(function (u) { info[u.group] = {id: u.group, ops: [u.id], names: [u.name], unfusable: u}; });
    var m = P.metrics, hw = P.hardware;
    sumLine.textContent = P.scheme.toUpperCase() + ' at \u03b2 = ' + kb(P.beta) + ': DRAM ' + kb(m.dram_fusable) +
      ' over fusable ops, ' + kb(m.dram_all) + ' over all ops; MBU ' + kb(m.mbu) + '; ' + m.groups + ' groups, ' +
      m.unfusable + ' unfusable, ' + m.invalid + ' invalid; DRAM time ' + si(m.dram_time_s, 's') +
      (m.energy_j !== null ? '; DRAM energy ' + si(m.energy_j, 'J') : '') +
      (P.search.algorithm ? '; search ' + P.search.algorithm : '') + ' (' + P.model.ops + ' ops)';
    hwLine.textContent = 'hardware ' + hw.name + ': buffer ' + kb(hw.buffer_bytes) + ', activations ' + hw.act_bytes +
      ' B, weights ' + hw.weight_bytes + ' B' + (hw.dram_bandwidth ? ', DRAM ' + si(hw.dram_bandwidth, 'B/s') : '') +
      (hw.dram_pj_per_byte ? ', ' + hw.dram_pj_per_byte + ' pJ/B' : '') + (hw.peak_macs ? ', ' + si(hw.peak_macs, 'MAC/s') : '') +
      '; graph ' + P.model.graph_hash + ', fusionplan ' + P.tool.version;
    /* Clusters: the bounding box of each group's ops. */
    var box = [];
    for (var v = 0; v < n; v++) {
      var k = groupOf[v];
      if (k < 0) continue;
      var b = box[k] || (box[k] = [1e12, 1e12, -1e12, -1e12]);
      b[0] = Math.min(b[0], ox(v)); b[1] = Math.min(b[1], oy(v));
      b[2] = Math.max(b[2], ox(v) + NW); b[3] = Math.max(b[3], oy(v) + NH);
    }
    var h = '';
    for (k = 0; k < box.length; k++) {
      if (!box[k]) continue;
      var g = info[k], c = hue(k), bad = g && !g.unfusable && !g.valid;
      h += '<rect class="grp' + (g && g.unfusable ? ' unf' : '') + (bad ? ' bad' : '') + '" data-g="' + k + '" x="' +
        (box[k][0] - 7) + '" y="' + (box[k][1] - 7) + '" width="' + (box[k][2] - box[k][0] + 14) + '" height="' +
        (box[k][3] - box[k][1] + 14) + '" rx="6" style="fill:hsla(' + c + ',70%,60%,.22);stroke:hsl(' + c + ',55%,40%)"/>';
    }
    clusters.innerHTML = h;
    /* Each op tinted with its group's colour too, so membership stays clear
     * where the boxes of branching groups overlap. */
    for (v = 0; v < n; v++) {
      opEls[v].setAttribute('data-group', groupOf[v]);
      var g2 = info[groupOf[v]];
      opEls[v].firstChild.style.fill = groupOf[v] < 0 || (g2 && g2.unfusable) ? '' : 'hsl(' + hue(groupOf[v]) + ',70%,93%)';
    }
    drawBars();
    side.innerHTML = '<b>Hover</b> a group or an op for its figures; click a bar to find its group.' +
      (extra && extra.kind === 'curve' ? '<p>Step ' + (si_ + 1) + ' of ' + plans.length + '.</p>' : '');
  }

  /* DRAM per group, canonical group order; gray: unfusable ops (weights streamed). */
  function drawBars() {
    var ng = info.length, bw = Math.max(2, Math.min(14, Math.floor(1100 / Math.max(1, ng)))), bh = 110, mx = 1;
    for (var k = 0; k < ng; k++) mx = Math.max(mx, dramOf(k));
    var h = '<svg width="' + (ng * bw + 70) + '" height="' + (bh + 30) + '"><text class="axis" x="0" y="10">' +
      esc(kb(mx)) + '</text><text class="axis" x="0" y="' + (bh + 24) + '">DRAM per group (group 0 .. ' + (ng - 1) +
      '; gray: unfusable)</text>';
    for (k = 0; k < ng; k++) {
      var hh = Math.max(1, dramOf(k) / mx * bh);
      h += '<rect class="bar' + (info[k] && info[k].unfusable ? ' unf' : '') + '" data-g="' + k + '" x="' + (60 + k * bw) +
        '" y="' + (bh + 4 - hh) + '" width="' + Math.max(1, bw - 1) + '" height="' + hh + '"/>';
    }
    bars.innerHTML = h + '</svg>';
  }
  function dramOf(k) { var g = info[k]; return !g ? 0 : g.unfusable ? g.unfusable.dram : g.f_d; }

  /* ---- hover cards --------------------------------------------------------- */
  function groupCard(k) {
    var g = info[k];
    if (!g) return '';
    if (g.unfusable) {
      var u = g.unfusable;
      return '<b>group ' + k + ': unfusable op</b>' + rows([['op', u.name], ['type', u.type], ['F_beta', kb(u.f_beta)],
        ['DRAM charged', kb(u.dram) + ' (weights streamed)']]);
    }
    var names = g.names.slice(0, 12).join(', ') + (g.names.length > 12 ? ', \u2026 (' + g.names.length + ' ops)' : '');
    return '<b>group ' + k + (g.valid ? '' : ' (INVALID: F_beta \u2265 \u03b2)') + '</b>' + rows([
      ['ops', g.ops.length + ': ' + names],
      ['F_beta', kb(g.f_beta) + ' (' + (100 * g.f_beta / P.beta).toFixed(1) + '% of \u03b2)'],
      ['F_D (DRAM)', kb(g.f_d)], ['MBU', kb(g.mbu)], ['weights', kb(g.weights)],
      ['tile rows', g.tile_rows], ['weight reads', g.weight_reads],
      ['inputs', g.inputs.length + ' tensors, ' + kb(g.inputs.reduce(function (s, t) { return s + t.bytes; }, 0))],
      ['outputs', g.outputs.length + ' tensors, ' + kb(g.outputs.reduce(function (s, t) { return s + t.bytes; }, 0))]
    ].concat(energyRows(g)));
  }
  /* Hook for the energy model (DESIGN section 19): a plan whose groups carry
   * energy_pj, latency_s and bound shows them; older plans have none. */
  function energyRows(g) {
    var r = [];
    if (g.energy_pj !== undefined && g.energy_pj !== null) r.push(['energy', si(g.energy_pj * 1e-12, 'J')]);
    if (g.latency_s !== undefined && g.latency_s !== null) r.push(['latency', si(g.latency_s, 's')]);
    if (g.bound !== undefined && g.bound !== null) r.push(['bound', g.bound]);
    return r;
  }
  function opCard(v) {
    var o = ops[v], a = o.alone;
    return '<b>' + esc(o.name) + '</b>' + rows([['type', o.type], ['output', o.shape.join('\u00d7') + ' (' + kb(o.bytes) + ')'],
      ['inputs', o.in.map(function (u) { return ops[u].name; }).join(', ') || '-'],
      ['weights', kb(o.weights)], ['MACs', num(o.macs)], ['group', groupOf[v] < 0 ? '- (graph input)' : groupOf[v]],
      a ? ['alone', (o.fusable ? '' : 'unfusable; ') + 'F_beta ' + kb(a.f_beta) + ', F_D ' + kb(a.f_d) + ', tile rows ' +
        a.tile_rows + ', weight reads ' + a.weight_reads + (G.beta !== P.beta ? ' (at \u03b2 = ' + kb(G.beta) + ')' : '')] : null]);
  }
  function showCard(e) {
    var t = e.target.closest('[data-op],[data-g]');
    if (!t) { card.style.display = 'none'; return; }
    card.innerHTML = t.hasAttribute('data-op') ? opCard(+t.getAttribute('data-op')) : groupCard(+t.getAttribute('data-g'));
    card.style.display = 'block';
    var cx = e.clientX + 14, cy = e.clientY + 14, r = card.getBoundingClientRect();
    if (cx + r.width > innerWidth) cx = e.clientX - r.width - 14;
    if (cy + r.height > innerHeight) cy = Math.max(0, innerHeight - r.height - 4);
    card.style.left = cx + 'px';
    card.style.top = cy + 'px';
  }
  view.addEventListener('mousemove', showCard);
  bars.addEventListener('mousemove', showCard);
  view.addEventListener('mouseleave', function () { card.style.display = 'none'; });
  bars.addEventListener('mouseleave', function () { card.style.display = 'none'; });
  bars.addEventListener('click', function (e) {
    var t = e.target.closest('[data-g]');
    if (!t) return;
    var r = clusters.querySelector('[data-g="' + t.getAttribute('data-g') + '"]');
    if (r) centre(+r.getAttribute('x') + +r.getAttribute('width') / 2, +r.getAttribute('y') + +r.getAttribute('height') / 2);
    side.innerHTML = groupCard(+t.getAttribute('data-g'));
  });

  /* ---- search ---------------------------------------------------------------- */
  var hits = [], hitAt = -1;
  search.addEventListener('input', function () {
    var q = search.value.trim().toLowerCase();
    hits = [];
    hitAt = -1;
    for (var v = 0; v < n; v++) {
      var on = q !== '' && ops[v].name.toLowerCase().indexOf(q) >= 0;
      opEls[v].classList.toggle('hit', on);
      opEls[v].classList.remove('cur');
      if (on) hits.push(v);
    }
    hitInfo.textContent = q ? hits.length + ' match' + (hits.length === 1 ? '' : 'es') : '';
    if (hits.length) next();
  });
  search.addEventListener('keydown', function (e) { if (e.key === 'Enter' && hits.length) next(); });
  function next() {
    if (hitAt >= 0) opEls[hits[hitAt]].classList.remove('cur');
    hitAt = (hitAt + 1) % hits.length;
    var v = hits[hitAt];
    opEls[v].classList.add('cur');
    centre(ox(v) + NW / 2, oy(v) + NH / 2);
    side.innerHTML = opCard(v) + (groupOf[v] >= 0 ? '<hr>' + groupCard(groupOf[v]) : '');
    hitInfo.textContent = (hitAt + 1) + ' of ' + hits.length;
  }

  /* ---- curve: the staircase and a slider over its steps ----------------------- */
  var cur = 0;
  if (curveBox) {
    var steps = extra.steps, cw = 640, ch = 150, lb = Math.log(steps[0].beta), ub = Math.log(extra.beta_max || steps[steps.length - 1].beta * 1.5);
    var dmax = steps[0].dram_all, dmin = steps[steps.length - 1].dram_all;
    /* dram_all holds the staircase's objective: bytes, or energy in fJ or
     * latency in fs (curve --objective). */
    var objName = extra.objective === 'energy' || extra.objective === 'latency' ? extra.objective : 'DRAM';
    var fig = objName === 'DRAM' ? kb : function (v) { return si(v * 1e-15, objName === 'energy' ? 'J' : 's'); };
    var sx = function (b) { return 60 + (Math.log(b) - lb) / Math.max(1e-9, ub - lb) * (cw - 80); };
    var sy = function (dr) { return 10 + (dmax - dr) / Math.max(1, dmax - dmin) * (ch - 40); };
    var pd = '';
    for (i = 0; i < steps.length; i++) {
      pd += (i ? 'L' + sx(steps[i].beta) + ' ' + sy(steps[i - 1].dram_all) : 'M' + sx(steps[0].beta) + ' ' + sy(steps[0].dram_all)) +
        'L' + sx(steps[i].beta) + ' ' + sy(steps[i].dram_all);
    }
    pd += 'L' + sx(Math.exp(ub)) + ' ' + sy(dmin);
    var ch_ = '<svg width="' + cw + '" height="' + ch + '"><path class="stair" d="' + pd + '"/>' +
      '<text class="axis" x="0" y="14">' + esc(fig(dmax)) + '</text><text class="axis" x="0" y="' + (ch - 30) + '">' + esc(fig(dmin)) +
      '</text><text class="axis" x="60" y="' + (ch - 4) + '">' + esc(kb(steps[0].beta)) + '</text><text class="axis" x="' + (cw - 80) +
      '" y="' + (ch - 4) + '">' + esc(kb(Math.exp(ub))) + '</text><text class="axis" x="260" y="' + (ch - 4) +
      '">buffer (log) \u2192 optimal ' + esc(objName) + ' over all ops (' + (objName === 'DRAM' ? 'bytes' : objName === 'energy' ? 'J' : 's') +
      ')</text><circle class="mark" id="fp-mark" r="5"/></svg>';
    curveBox.innerHTML = ch_;
    var lab = el('span', {id: 'fp-step'});
    var row = el('div', {'class': 'tools'});
    row.appendChild(el('span', {}, 'step'));
    row.appendChild(slider);
    row.appendChild(lab);
    curveBox.appendChild(row);
    var mark = curveBox.querySelector('#fp-mark');
    var setStep = function (s) {
      cur = s;
      mark.setAttribute('cx', sx(steps[s].beta));
      mark.setAttribute('cy', sy(steps[s].dram_all));
      lab.textContent = 'step ' + (s + 1) + ' of ' + steps.length + ': from \u03b2 = ' + kb(steps[s].beta) +
        ', optimal ' + objName + ' ' + fig(steps[s].dram_all) + ' (' + plans[s].metrics.groups + ' groups)';
      draw(s);
    };
    slider.addEventListener('input', function () { setStep(+slider.value); });
    setStep(0);
  } else {
    draw(0);
  }
  fit(false);
  /* A link may name a search: page.html#search=layer3.0 */
  if (location.hash.indexOf('#search=') === 0) {
    search.value = decodeURIComponent(location.hash.slice(8));
    search.dispatchEvent(new Event('input'));
  }
  document.body.setAttribute('data-fp-ops', n);
  document.body.setAttribute('data-fp-ms', Math.round(performance.now() - t0));
  document.body.setAttribute('data-fp-ready', errors.length ? 'error' : 'ok');

  /* ---- report pages (compare, sweep-report): tables and charts from fp-extra --- */
  function report(x) {
    if (!x || x.kind !== 'report') throw new Error('no plan or report data on this page');
    document.title = x.title + ' - fusionplan';
    var hd = document.body.appendChild(el('header'));
    hd.appendChild(el('h1', {}, x.title));
    (x.lines || []).forEach(function (l) { hd.appendChild(el('div', {'class': 'line'}, l)); });
    (x.sections || csvSections(x)).forEach(function (s) {
      var sec = document.body.appendChild(el('section', {'class': 'rep'}));
      sec.appendChild(el('h2', {}, s.title));
      if (s.note) sec.appendChild(el('p', {'class': 'muted'}, s.note));
      if (s.columns) {
        var t = sec.appendChild(el('table', {'class': 'rep'})), tr = t.appendChild(el('tr'));
        s.columns.forEach(function (c) { tr.appendChild(el('th', {}, c)); });
        s.rows.forEach(function (r) {
          var row = t.appendChild(el('tr'));
          r.forEach(function (c) { row.appendChild(el('td', {}, c === null ? '-' : String(c))); });
        });
      }
      if (s.chart) sec.appendChild(lineChart(s.chart));
    });
    document.body.setAttribute('data-fp-ms', Math.round(performance.now() - t0));
    document.body.setAttribute('data-fp-ready', errors.length ? 'error' : 'ok');
  }
  /* compare and sweep-report embed the CSV of --csv and --curves: one
   * section per network, scheme and buffer, its table and its budget curves
   * (best DRAM mean over the seeds against the plans evaluated, per search
   * and splitter). */
  function parseCsv(text) {
    var out = [], row = [], f = '', q = false;
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if (q) {
        if (c === '"' && text[i + 1] === '"') { f += '"'; i++; } else if (c === '"') q = false; else f += c;
      } else if (c === '"') q = true;
      else if (c === ',') { row.push(f); f = ''; }
      else if (c === '\n') { row.push(f); out.push(row); row = []; f = ''; }
      else f += c;
    }
    if (f !== '' || row.length) { row.push(f); out.push(row); }
    return out;
  }
  function csvSections(x) {
    var t = parseCsv(x.tables_csv || ''), c = parseCsv(x.curves_csv || ''), secs = {}, order = [];
    function sec(r) {
      var k = r[0] + ' ' + r[1] + ' ' + r[2];
      if (!secs[k]) {
        secs[k] = {title: r[0] + ', ' + r[1].toUpperCase() + ', buffer ' + kb(+r[2]), columns: t[0].slice(3), rows: [],
          chart: {x_label: 'plans evaluated', y_label: 'best DRAM over fusable ops (MB, mean over seeds)', series: []}};
        order.push(k);
      }
      return secs[k];
    }
    for (var i = 1; i < t.length; i++) sec(t[i]).rows.push(t[i].slice(3));
    var series = {};
    for (i = 1; i < c.length; i++) {
      var s = sec(c[i]), key = c[i][0] + c[i][1] + c[i][2] + c[i][3] + c[i][4];
      if (!series[key]) { series[key] = {name: c[i][3] + ' + ' + c[i][4], points: []}; s.chart.series.push(series[key]); }
      series[key].points.push([+c[i][5], +c[i][6]]);
    }
    return order.map(function (k) { if (!secs[k].chart.series.length) delete secs[k].chart; return secs[k]; });
  }
  /* Lines over a log-2 x axis (budgets, buffers): {x_label, y_label, series: [{name, points: [[x, y], ...]}]}. */
  function lineChart(c) {
    var w = 640, hh = 260, xs = [], ys = [];
    c.series.forEach(function (s) { s.points.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
    var logx = c.log_x !== false && xs.every(function (v) { return v > 0; });
    var fx = function (v) { return logx ? Math.log(v) : v; };
    var x0 = Math.min.apply(null, xs.map(fx)), x1 = Math.max.apply(null, xs.map(fx));
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (y1 === y0) { y0 -= 1; y1 += 1; }
    var px = function (v) { return 60 + (fx(v) - x0) / Math.max(1e-9, x1 - x0) * (w - 200); };
    var py = function (v) { return 10 + (y1 - v) / Math.max(1e-9, y1 - y0) * (hh - 50); };
    var h = '<svg xmlns="' + NS + '" width="' + w + '" height="' + hh + '">';
    c.series.forEach(function (s, k) {
      var col = 'hsl(' + hue(k) + ',60%,40%)', d = '';
      s.points.forEach(function (p, i) { d += (i ? 'L' : 'M') + px(p[0]) + ' ' + py(p[1]); });
      h += '<path d="' + d + '" style="fill:none;stroke:' + col + ';stroke-width:2"/>';
      s.points.forEach(function (p) { h += '<circle cx="' + px(p[0]) + '" cy="' + py(p[1]) + '" r="2.5" style="fill:' + col + '"><title>' + esc(s.name + ': ' + p[0] + ', ' + p[1]) + '</title></circle>'; });
      h += '<text class="axis" x="' + (w - 130) + '" y="' + (20 + 14 * k) + '" style="fill:' + col + '">' + esc(s.name) + '</text>';
    });
    h += '<text class="axis" x="0" y="14">' + esc(num(+y1.toPrecision(4))) + '</text><text class="axis" x="0" y="' + (hh - 40) + '">' +
      esc(num(+y0.toPrecision(4))) + '</text><text class="axis" x="60" y="' + (hh - 8) + '">' + esc(c.x_label + (logx ? ' (log)' : '') +
      ' \u2192 ' + c.y_label) + '</text></svg>';
    var div = el('div');
    div.innerHTML = h;
    return div;
  }
})();
