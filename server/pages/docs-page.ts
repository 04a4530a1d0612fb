import { esc, htmlPage, inlineMarkdown, markdown, type HtmlPage } from './html.js';
import { schemaAnchor, schemaBlock, typeLabel, type Schema } from './schema-view.js';

// GET /docs: the API reference, rendered on the server from the served OpenAPI document.
// No script: the table of contents is plain links and examples fold with <details>.

interface MediaType {
  schema?: Schema;
  example?: unknown;
}

interface Operation {
  operationId: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: unknown[];
  'x-required-scope'?: string;
  'x-compute-units'?: number;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}

interface OpenApi {
  info: { title: string; version: string; description?: string };
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

interface Entry {
  method: string;
  path: string;
  op: Operation;
}

const opAnchor = (op: Operation) => `op-${op.operationId}`;
const tagAnchor = (tag: string) => `tag-${tag.replace(/[^A-Za-z0-9_-]/g, '_')}`;
const method = (m: string) => `<span class="method m-${esc(m)}">${esc(m.toUpperCase())}</span>`;

/** Operations grouped by their first tag, in the document's tag order. */
function byTag(doc: OpenApi): [string, Entry[]][] {
  const groups = new Map<string, Entry[]>((doc.tags ?? []).map((t) => [t.name, []]));
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method: m, path, op });
    }
  }
  return [...groups].filter(([, entries]) => entries.length);
}

function access(op: Operation, responses: string[]): string {
  if (op['x-required-scope']) {
    const units = op['x-compute-units'];
    return `Key required · scope <code>${esc(op['x-required-scope'])}</code>${units === undefined ? '' : ` · ${units} compute unit${units === 1 ? '' : 's'}`}`;
  }
  if (responses.includes('401')) return 'Key required · the scope is not declared in the document';
  return 'Public · no key needed';
}

function example(label: string, value: unknown): string {
  const text = JSON.stringify(value, null, 2);
  return `<details class="example"${text.split('\n').length <= 40 ? ' open' : ''}><summary>${esc(label)}</summary><pre><code>${esc(text)}</code></pre></details>`;
}

function parameters(op: Operation): string {
  const params = op.parameters ?? [];
  if (!params.length) return '';
  const rows = params.map(
    (p) =>
      `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.schema ? typeLabel(p.schema) : 'any'}</td><td>${p.required ? '<span class="req">required</span>' : '<span class="muted">optional</span>'}</td><td>${p.description ? inlineMarkdown(p.description) : ''}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** `application/json`, … : the media types of a request or response, for its heading. */
const mediaTypes = (media: Record<string, MediaType> | undefined) => Object.keys(media ?? {}).map((t) => ` <code class="media">${esc(t)}</code>`).join('');

function content(media: Record<string, MediaType> | undefined, exampleLabel: string): string {
  return Object.values(media ?? {})
    .map((m) => [m.schema ? schemaBlock(m.schema) : '', 'example' in m ? example(exampleLabel, m.example) : ''].join('\n'))
    .join('\n');
}

/** `\`code\`: meaning; \`code\`: meaning` (how the document describes error statuses) as rows. */
function errorRows(status: string, description: string): string {
  const parts = description.split(/;\s*(?=`[a-z_]+`:)/);
  const coded = parts.map((p) => /^`([a-z_]+)`:\s*([\s\S]*)$/.exec(p));
  if (coded.every(Boolean)) {
    return coded.map((m, i) => `<tr><td>${i ? '' : esc(status)}</td><td><code>${esc(m![1])}</code></td><td>${inlineMarkdown(m![2])}</td></tr>`).join('');
  }
  return `<tr><td>${esc(status)}</td><td></td><td>${inlineMarkdown(description)}</td></tr>`;
}

function responses(op: Operation): string {
  const entries = Object.entries(op.responses ?? {});
  const success = entries.filter(([s]) => /^2\d\d$/.test(s));
  const errors = entries.filter(([s]) => !/^2\d\d$/.test(s));
  const out = success.map(([status, r]) => `<h4>Response ${esc(status)}${mediaTypes(r.content)}</h4>${r.description ? `<p>${inlineMarkdown(r.description)}</p>` : ''}${content(r.content, `Example response ${status}`)}`);
  if (errors.length) {
    const schemasUsed = [...new Set(errors.flatMap(([, r]) => Object.values(r.content ?? {}).flatMap((m) => (m.schema ? [typeLabel(m.schema)] : []))))];
    out.push(
      `<h4>Errors</h4>${schemasUsed.length ? `<p class="muted">Body: ${schemasUsed.join(', ')}</p>` : ''}<table class="errors"><thead><tr><th>Status</th><th>Code</th><th>Meaning</th></tr></thead><tbody>${errors
        .map(([status, r]) => errorRows(status, r.description ?? ''))
        .join('')}</tbody></table>`,
    );
  }
  return out.join('\n');
}

function operation({ method: m, path, op }: Entry): string {
  return `<section class="op" id="${esc(opAnchor(op))}">
<h3>${method(m)} <code class="path">${esc(path)}</code></h3>
${op.summary ? `<p class="summary">${inlineMarkdown(op.summary)}</p>` : ''}
<p class="access">${access(op, Object.keys(op.responses ?? {}))}</p>
${op.description ? markdown(op.description) : ''}
${parameters(op)}
${op.requestBody ? `<h4>Request body${op.requestBody.required ? '' : ' (optional)'}${mediaTypes(op.requestBody.content)}</h4>${content(op.requestBody.content, 'Example request body')}` : ''}
${responses(op)}
</section>`;
}

function toc(groups: [string, Entry[]][], schemaNames: string[]): string {
  const tags = groups
    .map(([tag, entries]) => `<li><a class="tag" href="#${tagAnchor(tag)}">${esc(tag)}</a><ul>${entries.map((e) => `<li><a href="#${esc(opAnchor(e.op))}">${method(e.method)}<span>${esc(e.path).replace(/\//g, '/<wbr>')}</span></a></li>`).join('')}</ul></li>`)
    .join('');
  const schemaLinks = schemaNames.map((n) => `<li><a href="#${schemaAnchor(n)}">${esc(n)}</a></li>`).join('');
  return `<nav class="toc" aria-label="Contents"><p class="toc-title">Contents</p><ul><li><a class="tag" href="#overview">Overview</a></li>${tags}<li><a class="tag" href="#schemas">Schemas</a><ul class="schema-list">${schemaLinks}</ul></li></ul></nav>`;
}

const CSS = `
.layout { display: grid; grid-template-columns: 19rem minmax(0, 1fr); min-height: 100vh; }
.toc { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow: auto; padding: 1rem 0.9rem 2rem; background: var(--panel); border-right: 1px solid var(--line); font-size: 0.86em; }
.toc ul { list-style: none; margin: 0; padding: 0; }
.toc ul ul { margin: 0.2em 0 0.7em; }
.toc li li a { display: flex; gap: 0.4em; align-items: baseline; padding: 0.12em 0; text-decoration: none; color: var(--fg); overflow-wrap: anywhere; }
.toc li li a span:last-child { min-width: 0; }
.toc li li a:hover { color: var(--link); }
.toc .tag { display: block; font-weight: 600; text-transform: capitalize; margin-top: 0.5em; text-decoration: none; }
.toc-title { margin: 0 0 0.3em; font-size: 0.8em; text-transform: uppercase; letter-spacing: 0.08em; color: var(--muted); }
main { padding: 1.5rem 2.5rem 4rem; max-width: 76rem; }
header h1 { margin: 0 0 0.2em; font-size: 2em; }
.intro p { max-width: 62rem; }
h2.group { margin-top: 2.5em; padding-bottom: 0.3em; border-bottom: 2px solid var(--line); text-transform: capitalize; }
.op, .schema { margin: 1.2em 0 2em; padding: 1em 1.3em; border: 1px solid var(--line); border-radius: 8px; }
.op h3 { margin: 0 0 0.4em; font-size: 1.15em; display: flex; gap: 0.6em; align-items: baseline; flex-wrap: wrap; }
.op h3 code.path { background: none; font-size: 1em; padding: 0; }
.op h4 { margin: 1.2em 0 0.3em; font-size: 0.95em; }
.op h4 code.media { margin-left: 0.5em; font-weight: normal; color: var(--muted); }
.summary { font-weight: 600; margin: 0.2em 0; }
.access { margin: 0.3em 0 0.8em; font-size: 0.9em; color: var(--muted); }
.method { display: inline-block; min-width: 3.6em; text-align: center; padding: 0.1em 0.45em; border-radius: 4px; color: #fff; font: 600 0.75em/1.6 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.toc .method { flex: none; min-width: 3.2em; font-size: 0.7em; }
.m-get { background: var(--get); }
.m-post { background: var(--post); }
.req { color: var(--bad); font-weight: 600; }
td.prop, table.errors td code { white-space: nowrap; }
table.props td:nth-child(2) { min-width: 9em; }
td.d1 { padding-left: 1.6em; } td.d2 { padding-left: 2.6em; } td.d3 { padding-left: 3.6em; } td.d4 { padding-left: 4.6em; }
.type { margin: 0.3em 0; }
details.example summary { cursor: pointer; color: var(--link); margin: 0.4em 0; }
.schema h3 { margin: 0 0 0.3em; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
:target { outline: 2px solid var(--link); outline-offset: 3px; }
@media (max-width: 900px) { .layout { display: block; } .toc { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); } main { padding: 1rem; } }
@media print { .toc { display: none; } .layout { display: block; } }
`;

const rendered = new WeakMap<object, HtmlPage>();

/** The page for one OpenAPI document (memoized per document object). */
export function docsPage(document: Record<string, unknown>): HtmlPage {
  const cached = rendered.get(document);
  if (cached) return cached;
  const doc = document as unknown as OpenApi;
  const groups = byTag(doc);
  const components = doc.components?.schemas ?? {};
  const names = Object.keys(components);
  const body = `<div class="layout">
${toc(groups, names)}
<main>
<header id="overview">
<h1>${esc(doc.info.title)}</h1>
<p class="muted">Version ${esc(doc.info.version)} · <a href="/v1/openapi.json">OpenAPI 3.1 document</a> · <a href="/docs/validation">Validation dashboard</a></p>
</header>
<div class="intro">${markdown(doc.info.description ?? '')}</div>
${groups.map(([tag, entries]) => `<h2 class="group" id="${tagAnchor(tag)}">${esc(tag)}</h2>\n${entries.map(operation).join('\n')}`).join('\n')}
<h2 class="group" id="schemas">Schemas</h2>
${names.map((n) => `<section class="schema" id="${schemaAnchor(n)}"><h3>${esc(n)}</h3>${schemaBlock(components[n])}</section>`).join('\n')}
</main>
</div>`;
  const page = htmlPage({ title: `${doc.info.title} ${doc.info.version} · API reference`, css: CSS, body });
  rendered.set(document, page);
  return page;
}
