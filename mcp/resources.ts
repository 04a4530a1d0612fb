import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient, ApiRequest } from './http.js';

// The four read-only resources of the specification: the documents an agent may want in context
// before it calls tools (capabilities, programs, runtime packages, parity cases). One package's
// detail is the get_runtime_package tool, not a resource template: the adapter exposes exactly
// these four, and any other URI is invalid params (-32602, "not found"). Each read is one API
// request; the API envelope is the resource text.

export const RESOURCE_URIS = {
  capabilities: 'rules://capabilities',
  programs: 'rules://programs',
  runtimePackages: 'rules://runtime/packages',
  parityCases: 'rules://parity/cases',
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
}
