// The browser side of GET /docs/validation, sent inline as a script. It fetches the validation
// runs with the key typed in by the user and builds every node with createElement and
// textContent: no data ever reaches innerHTML. (Plain ES2020, no backticks: it lives in a string.)

export const VALIDATION_SCRIPT = String.raw`
'use strict';
(() => {
  const KEY_ITEM = 'rules.validation.api_key';
  const RUNS_URL = '/v1/admin/validation/runs';
  // a variable's verdict: matched, its differences all explained (a departure's counterfactual
  // proved each: healthy), some corpus findings (located in a rule of the encodings served: for
  // their maintainers), some unexplained (nothing proved or located them), moved since the previous run,
  // or not computed
  const SERIES = ['unexplained', 'finding', 'explained', 'matched', 'drift_diff', 'uncovered'];
  const CASE_ORDER = ['unexplained', 'error', 'uncovered', 'finding', 'explained', 'differ', 'match'];
  /** The newest runs whose records are read for the chart (each record is one request). */
  const CHART_RUNS = 30;
  const SVG = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);
  const form = $('key-form');
  const keyInput = $('api-key');
  const remember = $('remember');
  const message = $('message');
  let apiKey = '';
  let runs = [];
  /** Verdict counts per run id, from its record (or from its totals when the record could not be read). */
  let verdicts = {};
  let selected = null;
  let generation = 0;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const storage = {
    get() { try { return sessionStorage.getItem(KEY_ITEM); } catch { return null; } },
    set(value) { try { sessionStorage.setItem(KEY_ITEM, value); } catch { /* storage unavailable */ } },
    clear() { try { sessionStorage.removeItem(KEY_ITEM); } catch { /* storage unavailable */ } },
  };

  function say(text, kind) {
    message.textContent = text;
    message.className = 'message ' + (kind || 'info');
    message.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    message.hidden = !text;
  }

  class Failure extends Error {
    constructor(status, text) { super(text); this.status = status; }
  }

  function explain(status, body, what) {
    const error = (body && body.error) || {};
    const server = error.message ? ' The server said: ' + error.message : '';
    const code = error.code ? ' ' + error.code : '';
    if (status === 401) return 'Key not accepted (401' + code + '): it is missing, unknown, expired or revoked. Check the key and try again.' + server;
    if (status === 403 && error.code === 'insufficient_scope' && /admin:analytics/.test(error.message || '')) {
      return 'Missing scope admin:analytics (403 insufficient_scope): this key is valid but may not read validation runs. Use a key that carries admin:analytics.';
    }
    if (status === 403) return 'Forbidden (403' + code + ').' + server;
    if (status === 404) return what + ' was not found (404' + code + ').' + server;
    if (status === 429) return 'Too many requests (429' + code + '). Wait a moment and try again.' + server;
    return 'Could not load ' + what.toLowerCase() + ' (HTTP ' + status + code + ').' + server;
  }

  async function api(path, what) {
    let response;
    try {
      response = await fetch(path, { headers: { 'x-api-key': apiKey, accept: 'application/json' }, cache: 'no-store' });
    } catch (err) {
      throw new Failure(0, 'Network error: the API could not be reached (' + ((err && err.message) || err) + '). Check your connection and that the server is running, then try again.');
    }
    let body = null;
    try { body = await response.json(); } catch { body = null; }
    if (!response.ok) throw new Failure(response.status, explain(response.status, body, what));
    if (!body || typeof body !== 'object' || !body.data) throw new Failure(response.status, 'Unexpected answer from the API for ' + what.toLowerCase() + ' (HTTP ' + response.status + ').');
    return body.data;
  }

  const show = (id, visible) => { $(id).hidden = !visible; };
  const shown = (v) => (v === null || v === undefined || v === '' ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const total = (run, name) => (run.totals && typeof run.totals[name] === 'number' ? run.totals[name] : 0);
  const when = (iso) => { const d = new Date(iso); return isNaN(d.getTime()) ? String(iso) : d.toISOString().replace('T', ' ').slice(0, 19) + ' UTC'; };

  /** A row's verdict: parity_diff is explained only when the run says every difference of it was. */
  function verdictOf(row) {
    const status = row && row.status;
    if (status === 'parity_match' || status === 'covered') return 'matched';
    if (status === 'parity_diff') {
      if (typeof row.unexplained !== 'number' || row.unexplained > 0) return 'unexplained';
      if (typeof row.findings === 'number' && row.findings > 0) return 'finding';
      return typeof row.explained === 'number' && row.explained > 0 ? 'explained' : 'unexplained';
    }
    return status === 'drift_diff' || status === 'uncovered' ? status : 'other';
  }

  function countVerdicts(run) {
    const counts = { unexplained: 0, finding: 0, explained: 0, matched: 0, drift_diff: 0, uncovered: 0, households: null };
    for (const row of Array.isArray(run.rows) ? run.rows : []) { const v = verdictOf(row); if (v in counts) counts[v]++; }
    if (Array.isArray(run.cases) && run.cases.some((c) => c && c.class)) counts.households = run.cases.filter((c) => c && c.class === 'unexplained').length;
    return counts;
  }

  /** Without its record, a run's differences count as unexplained: nothing shows they were proved. */
  const fromTotals = (run) => ({ unexplained: total(run, 'parity_diff'), finding: 0, explained: 0, matched: total(run, 'parity_match'), drift_diff: total(run, 'drift_diff'), uncovered: total(run, 'uncovered'), households: null });

  async function loadVerdicts(mine) {
    const newest = runs.slice(0, CHART_RUNS);
    let next = 0;
    const worker = async () => {
      while (next < newest.length && mine === generation) {
        const run = newest[next++];
        try { verdicts[run.id] = countVerdicts(await api(RUNS_URL + '/' + encodeURIComponent(run.id), 'Validation run ' + run.id)); }
        catch { verdicts[run.id] = fromTotals(run); }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }

  function resetView() {
    runs = [];
    verdicts = {};
    selected = null;
    for (const id of ['chart-section', 'runs-section', 'run-section']) show(id, false);
  }

  async function loadRuns() {
    const mine = ++generation;
    resetView();
    say('Loading validation runs…', 'info');
    form.setAttribute('aria-busy', 'true');
    try {
      const data = await api(RUNS_URL, 'Validation runs');
      if (mine !== generation) return;
      runs = Array.isArray(data.runs) ? data.runs : [];
      if (!runs.length) {
        say('No validation runs have been recorded yet. Publish one with POST ' + RUNS_URL + ' and reload.', 'info');
        return;
      }
      await loadVerdicts(mine);
      if (mine !== generation) return;
      drawChart();
      drawRunsTable();
      say('Loaded ' + runs.length + ' validation run' + (runs.length === 1 ? '' : 's') + '. Choose a run to see its variables and households.', 'ok');
    } catch (err) {
      if (mine !== generation) return;
      if (err instanceof Failure && err.status === 401) storage.clear();
      say(err.message, 'error');
    } finally {
      if (mine === generation) form.removeAttribute('aria-busy');
    }
  }

  function drawChart() {
    const ordered = runs.slice(0, CHART_RUNS).sort((a, b) => String(a.recorded_at).localeCompare(String(b.recorded_at)));
    const count = (run, name) => (verdicts[run.id] || fromTotals(run))[name] || 0;
    const width = 760, height = 260, left = 48, right = 12, top = 12, bottom = 56;
    const plotW = width - left - right, plotH = height - top - bottom;
    const highest = Math.max(1, ...ordered.map((r) => SERIES.reduce((s, name) => s + count(r, name), 0)));
    const magnitude = Math.pow(10, Math.floor(Math.log10(highest / 4)));
    const tickStep = Math.max(1, [1, 2, 5, 10].map((m) => m * magnitude).find((v) => v * 5 >= highest));
    const max = Math.ceil(highest / tickStep) * tickStep;
    const step = plotW / ordered.length;
    const barW = Math.max(3, Math.min(56, step * 0.7));
    const y = (v) => top + plotH - (v / max) * plotH;
    const chart = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, role: 'img', 'aria-labelledby': 'chart-title', class: 'chart' });
    chart.append(svg('title', { id: 'chart-title' }, 'Variables per run by verdict (unexplained differences at the bottom, then corpus findings, explained, matched, drift_diff, uncovered), the newest ' + CHART_RUNS + ' runs by recorded_at'));
    for (let v = 0; v <= max; v += tickStep) {
      chart.append(svg('line', { x1: left, x2: width - right, y1: y(v), y2: y(v), class: 'grid' }));
      chart.append(svg('text', { x: left - 6, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, String(v)));
    }
    const labelEvery = Math.ceil(ordered.length / 8);
    ordered.forEach((run, i) => {
      const x = left + i * step + (step - barW) / 2;
      const group = svg('g', { class: 'run', 'data-run-id': run.id, tabindex: '0', role: 'button' });
      const households = (verdicts[run.id] || {}).households;
      const label = when(run.recorded_at) + ' · ' + run.kind + ': ' + SERIES.map((s) => s + ' ' + count(run, s)).join(', ') + ' variables' + (typeof households === 'number' ? '; ' + households + ' unexplained households' : '');
      group.append(svg('title', {}, label));
      group.append(svg('rect', { x: left + i * step, y: top, width: step, height: plotH, class: 'hit' }));
      let base = 0;
      for (const name of SERIES) {
        const v = count(run, name);
        if (v > 0) group.append(svg('rect', { x, y: y(base + v), width: barW, height: y(base) - y(base + v), class: 'mark s-' + name, 'data-series': name }));
        base += v;
      }
      group.addEventListener('click', () => selectRun(run.id));
      group.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); selectRun(run.id); } });
      chart.append(group);
      if (i % labelEvery === 0) {
        const at = when(run.recorded_at);
        chart.append(svg('text', { x: left + i * step + step / 2, y: height - bottom + 16, class: 'axis', 'text-anchor': 'middle' }, at.slice(0, 10)));
        chart.append(svg('text', { x: left + i * step + step / 2, y: height - bottom + 30, class: 'axis', 'text-anchor': 'middle' }, at.slice(11, 16)));
      }
    });
    chart.append(svg('line', { x1: left, x2: width - right, y1: top + plotH, y2: top + plotH, class: 'baseline' }));
    const legend = el('ul', { class: 'legend' }, SERIES.map((s) => el('li', {}, [el('span', { class: 'swatch s-' + s }), document.createTextNode(s)])));
    $('chart').replaceChildren(chart, legend);
    show('chart-section', true);
  }

  const RUN_COLUMNS = [
    ['recorded_at', 'Recorded at'], ['kind', 'Kind'], ['contract_hash', 'Contract hash'], ['api_version', 'API version'],
    ['variables', 'Variables'], ['covered', 'Covered'], ['parity_match', 'Parity match'], ['parity_diff', 'Parity diff'],
    ['explained', 'Explained'], ['finding', 'Findings'], ['unexplained', 'Unexplained'], ['drift_diff', 'Drift diff'], ['uncovered', 'Uncovered'], ['avg_case_latency_ms', 'Avg case latency (ms)'],
  ];

  function drawRunsTable() {
    const head = el('tr', {}, RUN_COLUMNS.map(([, label]) => el('th', { scope: 'col', text: label })));
    const rows = runs.map((run) => {
      const cells = RUN_COLUMNS.map(([key]) => {
        if (key === 'recorded_at') {
          const button = el('button', { type: 'button', class: 'link', text: when(run.recorded_at) });
          button.addEventListener('click', () => selectRun(run.id));
          return el('td', {}, [button]);
        }
        if (key === 'explained' || key === 'finding' || key === 'unexplained') {
          const value = verdicts[run.id] ? verdicts[run.id][key] : undefined;
          return el('td', { class: 'num' + (key !== 'explained' && value > 0 ? ' v-' + key : ''), text: shown(value) });
        }
        const value = key in run ? run[key] : run.totals ? run.totals[key] : undefined;
        return el('td', { class: typeof value === 'number' ? 'num' : key === 'contract_hash' ? 'mono' : '', text: shown(value) });
      });
      return el('tr', { 'data-run-id': run.id }, cells);
    });
    $('runs').replaceChildren(el('thead', {}, [head]), el('tbody', {}, rows));
    show('runs-section', true);
  }

  function markSelected() {
    for (const node of document.querySelectorAll('[data-run-id]')) node.classList.toggle('selected', node.getAttribute('data-run-id') === selected);
  }

  async function selectRun(id) {
    const mine = ++generation;
    selected = id;
    markSelected();
    show('run-section', false);
    say('Loading run ' + id + '…', 'info');
    try {
      const run = await api(RUNS_URL + '/' + encodeURIComponent(id), 'Validation run ' + id);
      if (mine !== generation) return;
      drawRun(run);
      say('', 'info');
      $('run-section').scrollIntoView({ block: 'start' });
    } catch (err) {
      if (mine !== generation) return;
      say(err.message, 'error');
    }
  }

  function describeCase(w) {
    if (!w || typeof w !== 'object') return shown(w);
    const ours = 'ours' in w ? w.ours : w.current;
    const other = 'reference' in w ? 'reference ' + shown(w.reference) : 'before ' + shown(w.previous);
    const delta = typeof w.delta === 'number' ? ' (' + (w.delta > 0 ? '+' : '') + w.delta + ')' : '';
    const why = w.class === 'unexplained' || w.class === 'finding' ? ' · ' + (w.class === 'finding' ? 'corpus finding' : 'unexplained') : Array.isArray(w.departures) && w.departures.length ? ' · ' + w.departures.join(' + ') : '';
    return shown(w.case) + ': ours ' + shown(ours) + ', ' + other + delta + why;
  }

  const verdictBadge = (verdict, text) => el('span', { class: 'badge v-' + verdict, text });

  function drawRun(run) {
    $('run-title').textContent = 'Run ' + run.id;
    const facts = [
      ['Kind', run.kind], ['Recorded at', when(run.recorded_at)], ['Contract hash', run.contract_hash], ['API version', run.api_version],
      ['Base URL', run.base_url], ['Model versions', run.model_versions], ['Avg case latency (ms)', run.avg_case_latency_ms],
      ['Cases', Array.isArray(run.cases) ? run.cases.length : null],
    ];
    $('run-meta').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: shown(v) })]));
    const rows = Array.isArray(run.rows) ? run.rows : [];
    const counts = {};
    for (const row of rows) { const v = row && row.status === 'covered' ? 'covered' : verdictOf(row); counts[v] = (counts[v] || 0) + 1; }
    const order = [...SERIES, 'covered', 'other'];
    $('run-counts').replaceChildren(...Object.entries(counts).sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)).map(([verdict, n]) => el('li', {}, [verdictBadge(verdict === 'covered' ? 'matched' : verdict, verdict + ': ' + n)])));
    // rules validate records each departure of the reference engine with the households it explained
    const reference = run.model_versions && run.model_versions.reference;
    const departures = reference && Array.isArray(reference.departures) ? reference.departures.filter((d) => d && (d.explained || d.unexplained)) : [];
    $('run-departures').replaceChildren(...departures.map((d) => el('li', {}, [
      el('span', { class: 'mono', text: shown(d.id) + ': ' }),
      verdictBadge('explained', 'explained ' + shown(d.explained)),
      ...(d.unexplained ? [document.createTextNode(' '), verdictBadge('unexplained', 'tried on ' + shown(d.unexplained) + ' not explained')] : []),
    ])));
    show('run-departures', departures.length > 0);
    const extra = [];
    for (const row of rows) for (const key of Object.keys(row || {})) if (key !== 'variable' && key !== 'status' && !extra.includes(key)) extra.push(key);
    const columns = ['variable', 'status', ...extra];
    const head = el('tr', {}, columns.map((c) => el('th', { scope: 'col', text: c })));
    const body = rows.map((row) => el('tr', { class: 'row-' + verdictOf(row) }, columns.map((c) => {
      const value = row ? row[c] : undefined;
      if (c === 'status') return el('td', {}, [verdictBadge(verdictOf(row), shown(value) + (value === 'parity_diff' ? ' · ' + verdictOf(row) : ''))]);
      if (c === 'match_rate' && typeof value === 'number') return el('td', { class: 'num', text: (value * 100).toFixed(1) + ' %' });
      // rules validate lists the worst differences (and values that moved) per variable
      if ((c === 'worst' || c === 'changed') && Array.isArray(value)) return el('td', {}, [el('ul', { class: 'cases' }, value.map((w) => el('li', { class: 'mono', text: describeCase(w) })))]);
      return el('td', { class: (c === 'variable' ? 'mono' : typeof value === 'number' ? 'num' : '') + (c === 'unexplained' && value > 0 ? ' v-unexplained' : c === 'findings' && value > 0 ? ' v-finding' : ''), text: shown(value) });
    })));
    if (!rows.length) body.push(el('tr', {}, [el('td', { colspan: String(columns.length), class: 'muted', text: 'This run has no rows.' })]));
    $('rows').replaceChildren(el('thead', {}, [head]), el('tbody', {}, body));
    drawCases(Array.isArray(run.cases) ? run.cases : []);
    show('run-section', true);
  }

  /** The run's households that did not simply match, unexplained ones first, with what proves or diagnoses each. */
  function drawCases(cases) {
    const kindOf = (c) => (c && (c.class || c.status)) || 'match';
    const listed = cases.filter((c) => kindOf(c) !== 'match').sort((a, b) => CASE_ORDER.indexOf(kindOf(a)) - CASE_ORDER.indexOf(kindOf(b)));
    const matching = cases.length - listed.length;
    const detail = (c) => {
      if (c.class === 'explained') return 'proved by ' + (c.proved_by || []).join(' + ');
      const parts = [];
      if (c.finding) parts.push('first differs in ' + shown(c.finding.rule) + (c.finding.source ? ' (' + c.finding.source + ')' : '') + ': ' + shown(c.finding.variable) + ' ours ' + shown(c.finding.ours) + ', reference ' + shown(c.finding.reference) + (Array.isArray(c.finding.departures) && c.finding.departures.length ? ', with ' + c.finding.departures.join(' + ') + ' applied' : ''));
      if (c.diagnosis) parts.push('why: ' + c.diagnosis);
      if (Array.isArray(c.differences)) parts.push(c.differences.map((d) => d.variable + ': ours ' + shown(d.ours) + ', reference ' + shown(d.reference)).join('; '));
      if (c.first_difference) parts.push('first difference ' + shown(c.first_difference.variable) + ', ours from ' + shown(c.first_difference.rule) + (c.first_difference.source ? ' (' + c.first_difference.source + ')' : ''));
      if (Array.isArray(c.tried) && c.tried.length) parts.push('tried ' + c.tried.join(', '));
      if (c.error) parts.push(String(c.error));
      return parts.join(' · ') || '—';
    };
    const verdict = (c) => (kindOf(c) === 'explained' || kindOf(c) === 'finding' ? kindOf(c) : ['unexplained', 'error', 'differ'].includes(kindOf(c)) ? 'unexplained' : kindOf(c) === 'uncovered' ? 'uncovered' : 'other');
    const head = el('tr', {}, ['household', 'state', 'set', 'verdict', 'why'].map((t) => el('th', { scope: 'col', text: t })));
    const body = listed.map((c) => el('tr', { 'data-case': shown(c.id), class: 'row-' + verdict(c) }, [
      el('td', { class: 'mono', text: shown(c.id) }), el('td', { text: shown(c.state) }), el('td', { text: shown(c.set) }),
      el('td', {}, [verdictBadge(verdict(c), kindOf(c))]), el('td', { text: detail(c) }),
    ]));
    $('cases').replaceChildren(el('thead', {}, [head]), el('tbody', {}, body));
    $('cases-summary').textContent = cases.length ? listed.length + ' of ' + cases.length + ' households did not match outright' + (matching ? '; ' + matching + ' matched' : '') + '.' : 'This run lists no households.';
    show('cases-table', listed.length > 0);
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    apiKey = keyInput.value.trim();
    if (!apiKey) { say('Enter an API key with the scope admin:analytics.', 'error'); return; }
    if (remember.checked) storage.set(apiKey); else storage.clear();
    loadRuns();
  });

  $('forget').addEventListener('click', () => {
    generation++;
    storage.clear();
    apiKey = '';
    keyInput.value = '';
    remember.checked = false;
    resetView();
    say('The key was forgotten.', 'info');
  });

  const saved = storage.get();
  if (saved) {
    keyInput.value = saved;
    remember.checked = true;
    apiKey = saved;
    loadRuns();
  }
})();
`;
