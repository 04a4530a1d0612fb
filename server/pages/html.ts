import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

// Shared pieces of the HTML pages: escaping, the small Markdown subset of API descriptions,
// and a self-contained document (inline style and script only) with a Content-Security-Policy
// that pins those inline blocks by hash, allows fetches to this origin only and nothing else.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text and attribute values. */
export const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** One line of Markdown: `code` and **bold**; everything else is text. */
export function inlineMarkdown(text: string): string {
  return esc(text)
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 ? `<code>${part.slice(1, -1)}</code>` : part.replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')))
    .join('');
}

/** Paragraphs (separated by blank lines) of inline Markdown. */
export function markdown(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${inlineMarkdown(p.replace(/\s*\n\s*/g, ' '))}</p>`)
    .join('\n');
}

export interface HtmlPage {
  html: string;
  csp: string;
}

const BASE_CSS = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --bg: #ffffff; --panel: #f5f7fa; --line: #dde2ea; --link: #1f5fbf; --code: #eef1f6;
  --get: #1f6fd1; --post: #17804a; --ok: #17804a; --warn: #b26a00; --bad: #c0392b; --none: #7a8394; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e4e8ef; --muted: #9aa4b5; --bg: #14171d; --panel: #1c2029; --line: #2e3440; --link: #7fb0ff; --code: #252b36;
    --get: #5fa0ff; --post: #4cc38a; --ok: #4cc38a; --warn: #f0a640; --bad: #ff7b6b; --none: #8d96a8; }
}
* { box-sizing: border-box; }
html { font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
body { margin: 0; }
a { color: var(--link); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.88em; }
code { background: var(--code); padding: 0.05em 0.3em; border-radius: 3px; overflow-wrap: anywhere; }
pre { background: var(--code); padding: 0.75em 1em; border-radius: 6px; overflow: auto; max-height: 32em; line-height: 1.4; }
pre code { background: none; padding: 0; }
h1, h2, h3, h4 { line-height: 1.25; }
table { border-collapse: collapse; width: 100%; margin: 0.5em 0 1em; font-size: 0.93em; }
th, td { text-align: left; vertical-align: top; padding: 0.35em 0.6em; border-bottom: 1px solid var(--line); }
th { background: var(--panel); font-weight: 600; }
.muted { color: var(--muted); }
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** A complete document; `script` is inline JavaScript, allowed to fetch from this origin only. */
export function htmlPage(options: { title: string; css: string; body: string; script?: string }): HtmlPage {
  const css = BASE_CSS + options.css;
  const csp = [
    "default-src 'none'",
    `style-src ${sha256(css)}`,
    `script-src ${options.script ? sha256(options.script) : "'none'"}`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(options.title)}</title>
<link rel="icon" href="data:,">
<style>${css}</style>
</head>
<body>
${options.body}
${options.script ? `<script>${options.script}</script>\n` : ''}</body>
</html>
`;
  return { html, csp };
}

/** Send a page: HTML content type and its Content-Security-Policy. */
export function sendHtml(reply: FastifyReply, page: HtmlPage): string {
  reply.type('text/html; charset=utf-8');
  reply.header('content-security-policy', page.csp);
  return page.html;
}
