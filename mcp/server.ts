import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, isJSONRPCRequest, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AdapterConfig } from './config.js';
import { ApiClient } from './http.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerTools } from './tools.js';

// The stdio MCP server: 14 tools, 4 resources, 3 prompts over one API client. It holds no rules
// or data of its own; everything comes from the API at call time.

const INSTRUCTIONS = `Tools for the Rules API: search and read rule encodings of statutes, regulations and policy with their legal sources, and calculate household outcomes (e.g. SNAP) with a per-variable trace.
Start with get_capabilities: it lists the executable packages and a ready-to-run sample_request for each, usable as calculate_household arguments. get_runtime_package tells which household inputs a package accepts; its sample_request (household.entities) is a household to fill in.
Every tool result is the API envelope {status, data, meta}. API rejections come back as results with isError and structuredContent.error {message, http_status, api_response, retry_after?}; the API key's scopes decide which tools succeed.`;

export function createMcpServer(config: AdapterConfig, version: string): McpServer {
  const server = new McpServer({ name: 'rules', version }, { instructions: INSTRUCTIONS });
  const api = new ApiClient(config);
  registerTools(server, api);
  registerResources(server, api);
  registerPrompts(server, api);
  return server;
}

/** Each request the client may send, by method, as the SDK validates it. */
const REQUEST_SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/** The methods whose `params.uri` the SDK parses as a URL (a string that is none throws inside it). */
const URI_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

/** What is wrong with a request's params, by field; nothing when the SDK can take them. */
function paramProblems(message: JSONRPCRequest): string | undefined {
  const checked = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
  if (checked && !checked.success) return checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const uri = (message.params as { uri?: unknown } | undefined)?.uri;
  if (URI_METHODS.has(message.method) && typeof uri === 'string' && !URL.canParse(uri)) return `params.uri: not a URI: ${JSON.stringify(uri.slice(0, 200))}`;
  return undefined;
}

/**
 * Connect `server` to `transport`, refusing a request whose params the protocol rejects
 * (`arguments: 0` for tools/call, a resource `uri` that is no URI) as invalid params (-32602)
 * naming the field: the SDK would answer it as an internal error (-32603), as if the adapter
 * had failed.
 */
export async function connectServer(server: McpServer, transport: Transport): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    const problems = isJSONRPCRequest(message) ? paramProblems(message) : undefined;
    if (problems === undefined) return deliver(message, extra);
    void transport.send({ jsonrpc: '2.0', id: (message as JSONRPCRequest).id, error: { code: ErrorCode.InvalidParams, message: `invalid params for ${(message as JSONRPCRequest).method}: ${problems}` } });
  };
}

/** Serves MCP on stdin/stdout until the client closes stdin. */
export async function serveStdio(config: AdapterConfig, version: string): Promise<void> {
  const server = createMcpServer(config, version);
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await connectServer(server, new StdioServerTransport());
  await closed;
  await server.close();
}
