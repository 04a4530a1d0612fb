import { docsPage } from '../pages/docs-page.js';
import { sendHtml } from '../pages/html.js';
import { validationPage } from '../pages/validation-page.js';
import { defineRoutes, type OpenApi } from './route.js';

// The two public HTML pages: self-contained (inline style and script, no other origin).

const html = { status: 200, contentType: 'text/html', schema: { type: 'string' } };

export const pagesRoutes = (openApi: OpenApi) =>
  defineRoutes(
    {
      method: 'GET',
      url: '/docs',
      path: '/docs',
      scope: null,
      tag: 'public',
      summary: 'API reference (HTML)',
      description: 'This OpenAPI document rendered as one self-contained HTML page: every operation with its scope, parameters, bodies, responses, errors and examples, and every schema.',
      envelope: false,
      success: { ...html, description: 'The API reference page.' },
      errors: [],
      handler: async (ctx, _request, reply) => sendHtml(reply, docsPage(openApi.document(ctx))),
    },
    {
      method: 'GET',
      url: '/docs/validation',
      path: '/docs/validation',
      scope: null,
      tag: 'public',
      summary: 'Validation-run dashboard (HTML)',
      description:
        'A self-contained HTML dashboard. It asks for a key with `admin:analytics` and loads the runs in the browser from GET /v1/admin/validation/runs and GET /v1/admin/validation/runs/{run_id}.',
      envelope: false,
      success: { ...html, description: 'The dashboard page; its data is fetched client-side.' },
      errors: [],
      handler: async (_ctx, _request, reply) => sendHtml(reply, validationPage),
    },
  );
