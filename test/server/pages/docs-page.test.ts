import { describe, expect, it } from 'vitest';
import { docsPage } from '../../../server/pages/docs-page.js';
import { esc, markdown } from '../../../server/pages/html.js';

// The docs renderer on a hostile document: every string is text, never markup.

const EVIL = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'';

const hostile = {
  openapi: '3.1.0',
  info: { title: EVIL, version: EVIL, description: `**${EVIL}** \`${EVIL}\`\n\n${EVIL}` },
  tags: [{ name: EVIL }],
  paths: {
    [`/v1/${EVIL}`]: {
      post: {
        operationId: `x${EVIL}`,
        tags: [EVIL],
        summary: EVIL,
        description: EVIL,
        'x-required-scope': EVIL,
        'x-compute-units': 1,
        parameters: [{ name: EVIL, in: 'query', required: true, description: EVIL, schema: { enum: [EVIL], pattern: EVIL } }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${EVIL}` }, example: { [EVIL]: EVIL } } } },
        responses: {
          '200': { description: EVIL, content: { [EVIL]: { schema: { type: EVIL, format: EVIL, description: EVIL }, example: EVIL } } },
          '400': { description: `\`invalid_request\`: ${EVIL}; \`invalid_household\`: ${EVIL}` },
          '500': { description: EVIL },
        },
      },
    },
  },
  components: { schemas: { [EVIL]: { type: 'object', required: [EVIL, 'other'], properties: { [EVIL]: { const: EVIL, description: EVIL, default: EVIL }, list: { type: 'array', items: { type: 'object', properties: { [EVIL]: { oneOf: [{ $ref: EVIL }] } } } } } } } },
};

describe('docs page rendering', () => {
  it('escapes every string of the document', () => {
    const { html } = docsPage(hostile);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/onerror=alert\(2\)>/);
    expect(html).toContain(esc(EVIL));
  });

  it('renders the Markdown subset of descriptions', () => {
    expect(markdown('One `a<b>` and **bold**\nsame paragraph.\n\nTwo `**not bold**`.')).toBe(
      '<p>One <code>a&lt;b&gt;</code> and <strong>bold</strong> same paragraph.</p>\n<p>Two <code>**not bold**</code>.</p>',
    );
  });

  it('splits coded error descriptions into one row per code', () => {
    const { html } = docsPage(hostile);
    expect(html).toMatch(/<tr><td>400<\/td><td><code>invalid_request<\/code><\/td>.*<tr><td><\/td><td><code>invalid_household<\/code><\/td>/s);
  });
});
