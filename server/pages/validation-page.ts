import { htmlPage, type HtmlPage } from './html.js';
import { VALIDATION_SCRIPT } from './validation-script.js';

// GET /docs/validation: a static dashboard shell. The runs are loaded in the browser from
// GET /v1/admin/validation/runs[/{run_id}] with a key the user types in (scope admin:analytics).

const BODY = `<main class="dash">
<header>
<h1>Validation runs</h1>
<p class="muted">Parity and drift results published with <code>rules validate --publish</code> or <code>POST /v1/admin/validation/runs</code>. A difference is <span class="v-explained">explained</span> when a documented departure of the reference engine, applied to the household, reproduces it; a <span class="v-finding">corpus finding</span> when none does and it starts in a rule of the encodings served (the rule, its source and both values are shown); <span class="v-unexplained">unexplained</span> otherwise, with why. <a href="/docs">API reference</a></p>
</header>
<section class="panel" aria-labelledby="key-heading">
<h2 id="key-heading">API key</h2>
<form id="key-form" method="post" autocomplete="off">
<label for="api-key">Key with the scope <code>admin:analytics</code></label>
<div class="row">
<input id="api-key" name="api-key" type="password" spellcheck="false" autocomplete="off" required>
<button type="submit">Load runs</button>
<button type="button" id="forget" class="secondary">Forget key</button>
</div>
<label class="check"><input id="remember" type="checkbox"> Remember the key in this tab until it is closed (sessionStorage)</label>
</form>
<noscript><p class="message error">This dashboard loads the runs in your browser and needs JavaScript.</p></noscript>
<p id="message" class="message info" role="status" hidden></p>
</section>
<section id="chart-section" class="panel" aria-labelledby="chart-heading" hidden>
<h2 id="chart-heading">Runs over time</h2>
<div id="chart"></div>
</section>
<section id="runs-section" class="panel" aria-labelledby="runs-heading" hidden>
<h2 id="runs-heading">Runs <span class="muted">(newest first)</span></h2>
<div class="scroll"><table id="runs"></table></div>
</section>
<section id="run-section" class="panel" aria-labelledby="run-title" hidden>
<h2 id="run-title"></h2>
<dl id="run-meta" class="facts"></dl>
<ul id="run-counts" class="counts"></ul>
<ul id="run-departures" class="counts" aria-label="Departures of the reference engine" hidden></ul>
<div class="scroll"><table id="rows"></table></div>
<h3 id="cases-heading">Households</h3>
<p id="cases-summary" class="muted"></p>
<div id="cases-table" class="scroll"><table id="cases" aria-labelledby="cases-heading"></table></div>
</section>
</main>`;

const CSS = `
/* explained differences are healthy: a green of their own, never the red of an unexplained one */
:root { --explained: #2a7d8c; --finding: #7b3fb0; }
@media (prefers-color-scheme: dark) { :root { --explained: #5cc2cf; --finding: #c59bf0; } }
.dash { max-width: 78rem; margin: 0 auto; padding: 1.5rem 1.5rem 4rem; }
.dash h1 { margin: 0 0 0.2em; }
.panel { margin: 1.2em 0; padding: 1em 1.3em; border: 1px solid var(--line); border-radius: 8px; }
.panel h2 { margin: 0 0 0.6em; font-size: 1.15em; }
[hidden] { display: none !important; }
label { display: block; margin-bottom: 0.3em; }
.row { display: flex; gap: 0.5em; flex-wrap: wrap; }
input[type=password] { flex: 1 1 22em; font: inherit; padding: 0.45em 0.6em; border: 1px solid var(--line); border-radius: 5px; background: var(--bg); color: var(--fg); }
button { font: inherit; padding: 0.45em 1em; border-radius: 5px; border: 1px solid var(--link); background: var(--link); color: var(--bg); cursor: pointer; }
button.secondary { background: transparent; color: var(--link); }
button.link { background: none; border: 0; padding: 0; color: var(--link); text-decoration: underline; white-space: nowrap; }
label.check { margin-top: 0.6em; font-size: 0.92em; color: var(--muted); }
form[aria-busy=true] button[type=submit] { opacity: 0.6; }
.message { margin: 0.8em 0 0; padding: 0.6em 0.8em; border-radius: 5px; border-left: 4px solid var(--none); background: var(--panel); }
.message.error { border-left-color: var(--bad); }
.message.ok { border-left-color: var(--ok); }
.scroll { overflow-x: auto; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.88em; }
tr.selected td { background: var(--code); }
svg.chart { width: 100%; height: auto; max-height: 22rem; display: block; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .baseline { stroke: var(--muted); stroke-width: 1; }
svg .axis { fill: var(--muted); font-size: 11px; }
svg .hit { fill: transparent; }
svg g.run { cursor: pointer; outline: none; }
svg g.run:hover .hit, svg g.run:focus .hit { fill: var(--code); }
svg g.run.selected .hit { fill: var(--code); stroke: var(--link); stroke-width: 1; }
.s-matched { fill: var(--ok); background: var(--ok); }
.s-explained { fill: var(--explained); background: var(--explained); }
.s-unexplained { fill: var(--bad); background: var(--bad); }
.s-finding { fill: var(--finding); background: var(--finding); }
.s-drift_diff { fill: var(--warn); background: var(--warn); }
.s-uncovered { fill: var(--none); background: var(--none); }
.legend, .counts { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; padding: 0; margin: 0.6em 0; font-size: 0.9em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; border-radius: 2px; margin-right: 0.4em; vertical-align: -0.1em; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2em 1em; margin: 0 0 0.8em; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.cases { margin: 0; padding-left: 1.1em; }
.badge { display: inline-block; padding: 0.05em 0.5em; border-radius: 999px; font-size: 0.85em; border: 1px solid currentColor; white-space: nowrap; }
.v-matched { color: var(--ok); }
.v-explained { color: var(--explained); }
.v-unexplained { color: var(--bad); }
.v-finding { color: var(--finding); }
.v-drift_diff { color: var(--warn); }
.v-uncovered, .v-other { color: var(--none); }
tr.row-unexplained td:first-child { box-shadow: inset 3px 0 var(--bad); }
tr.row-finding td:first-child { box-shadow: inset 3px 0 var(--finding); }
.dash h3 { margin: 1.2em 0 0.3em; font-size: 1em; }
`;

export const validationPage: HtmlPage = htmlPage({ title: 'Validation runs · Rules API', css: CSS, body: BODY, script: VALIDATION_SCRIPT });
