import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { apiPath } from './api-path.js';
import type { ApiClient, ApiRequest } from './http.js';

// Four read-only resources: the documents an agent may want in context before it calls tools
// (capabilities, programs, runtime packages, parity cases), plus a template for one package.
// Each read is one API request; the API envelope is the resource text.

export const RESOURCE_URIS = {
  capabilities: 'rules://capabilities',
  programs: 'rules://programs',
  runtimePackages: 'rules://runtime/packages',
  parityCases: 'rules://parity/cases',
  runtimePackage: 'rules://runtime/packages/{jurisdiction}/{program_id}',
} as const;

const JSON_TYPE = 'application/json';

export function registerResources(server: McpServer, api: ApiClient): void {
  // Resources have no error result: a rejected read is a protocol error carrying the API's reason.
  const read = async (uri: URL, request: ApiRequest): Promise<ReadResourceResult> => {
    const outcome = await api.call(request);
    if (!outcome.ok) throw new Error(outcome.error.message);
    return { contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(outcome.envelope, null, 2) }] };
  };

  server.registerResource(
    'capabilities',
    RESOURCE_URIS.capabilities,
    {
      title: 'API capabilities manifest',
      description: 'API version, endpoints, repository and runtime status, executable packages and a sample calculation request per package (GET /v1/capabilities; scope rules:read).',
      mimeType: JSON_TYPE,
    },
    (uri) => read(uri, { method: 'GET', path: '/v1/capabilities' }),
  );

  server.registerResource(
    'programs',
    RESOURCE_URIS.programs,
    {
      title: 'Programs',
      description: 'Programs with indexed rules, with rule counts and status (GET /v1/programs; scope rules:read).',
      mimeType: JSON_TYPE,
    },
    (uri) => read(uri, { method: 'GET', path: '/v1/programs' }),
  );

  server.registerResource(
    'runtime-packages',
    RESOURCE_URIS.runtimePackages,
    {
      title: 'Runtime packages',
      description: 'Program/jurisdiction pairs the calculation runtime can execute, with default outputs (GET /v1/runtime/packages; scope rules:read).',
      mimeType: JSON_TYPE,
    },
    (uri) => read(uri, { method: 'GET', path: '/v1/runtime/packages' }),
  );

  server.registerResource(
    'parity-cases',
    RESOURCE_URIS.parityCases,
    {
      title: 'Parity cases',
      description:
        'Canonical households with outputs derived by hand from the law, and what PolicyEngine-US recorded for some of them (GET /v1/parity/cases; scope admin:parity).',
      mimeType: JSON_TYPE,
    },
    (uri) => read(uri, { method: 'GET', path: '/v1/parity/cases' }),
  );

  // No list callback: the packages are listed by the resource above, and listing here would cost a request per resources/list.
  server.registerResource(
    'runtime-package',
    new ResourceTemplate(RESOURCE_URIS.runtimePackage, { list: undefined }),
    {
      title: 'Runtime package detail',
      description:
        'One executable package: its input schema (entities, inputs, defaults), outputs, aliases, default period and a sample request, e.g. rules://runtime/packages/us-co/co-snap (GET /v1/runtime/packages/{jurisdiction}/{program_id}; scope rules:read).',
      mimeType: JSON_TYPE,
    },
    // template variables arrive as they appear in the URI (percent-encoded); apiPath refuses any
    // that would leave the endpoint (a rejected read is a protocol error naming why)
    (uri, variables) =>
      read(uri, { method: 'GET', path: apiPath('/v1/runtime/packages/{jurisdiction}/{program_id}', { jurisdiction: uriValue(variables.jurisdiction), program_id: uriValue(variables.program_id) }) }),
  );
}

/** A template variable as its text: decoded once, as the URI carried it encoded. */
function uriValue(value: string | string[] | undefined): string {
  const text = String(value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
