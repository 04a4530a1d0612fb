import type { Command } from 'commander';
import { AdapterConfigError, DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS, readAdapterConfig } from '../../mcp/config.js';
import { serveStdio } from '../../mcp/server.js';
import { UsageError } from '../exit-codes.js';
import { PACKAGE_VERSION } from '../../compiler/project.js';

// `rules mcp`: the Model Context Protocol adapter over stdio, forwarding to a Rules API.

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve the Rules API as MCP tools, resources and prompts over stdio')
    .addHelpText(
      'after',
      `
Settings (environment, read at start):
  SERVICE_API_BASE_URL    API origin (default ${DEFAULT_BASE_URL}, the local \`rules serve\`)
  SERVICE_API_KEY         sent as Authorization: Bearer <key>; its scopes decide which tools succeed
  SERVICE_API_TIMEOUT_MS  per-request timeout, a positive number (default ${DEFAULT_TIMEOUT_MS})
stdout carries the protocol; diagnostics go to stderr.`,
    )
    .action(async () => {
      let config;
      try {
        config = readAdapterConfig(process.env);
      } catch (err) {
        if (err instanceof AdapterConfigError) throw new UsageError(err.message);
        throw err;
      }
      process.stderr.write(`rules mcp: forwarding to ${config.baseUrl} (${config.apiKey ? 'with' : 'without'} an API key, timeout ${config.timeoutMs} ms)\n`);
      await serveStdio(config, PACKAGE_VERSION);
    });
}
