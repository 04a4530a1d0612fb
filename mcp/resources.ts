import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient, ApiRequest } from './http.js';

// Four read-only resources: the discovery documents an agent may want in context before it calls
// tools. Each read is one API request; the API envelope is the resource text.

export const RESOURCE_URIS = {
  capabilities: 'rules://capabilities',
  programs: 'rules://programs',
  runtimePackages: 'rules://runtime/packages',
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

  // No list callback: the packages are listed by the resource above, and listing here would cost a request per resources/list.
  server.registerResource(
    'runtime-package',
    new ResourceTemplate(RESOURCE_URIS.runtimePackage, { list: undefined }),
    {
      title: 'Runtime package detail',
      description:
        'One executable package: its input schema (entities, inputs, defaults), outputs, aliases, default period and a sample request, e.g. rules://runtime/packages/us-co/snap (GET /v1/runtime/packages/{jurisdiction}/{program_id}; scope rules:read).',
      mimeType: JSON_TYPE,
    },
    (uri, variables) =>
      read(uri, { method: 'GET', path: `/v1/runtime/packages/${apiSegment(variables.jurisdiction)}/${apiSegment(variables.program_id)}` }),
  );
}

/** Template variables arrive as they appear in the URI (percent-encoded); the API path needs them encoded once. */
function apiSegment(uriValue: string | string[] | undefined): string {
  return encodeURIComponent(decodeURIComponent(String(uriValue)));
}
