import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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

/** Serves MCP on stdin/stdout until the client closes stdin. */
export async function serveStdio(config: AdapterConfig, version: string): Promise<void> {
  const server = createMcpServer(config, version);
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
}
