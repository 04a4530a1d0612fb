// The one HTTP client the CLI's commands use against a running daemon (`rules explore --url`,
// `rules parity --url`, `rules validate --url` and `--publish`): the key on every request, a time
// limit, and an answer that is always read, so a daemon that is down, slow, or answers with
// something other than JSON becomes one readable error instead of a crash or a hang.

import { describeCause } from '../mcp/http.js';
import { UsageError } from './exit-codes.js';

export const API_TIMEOUT_MS = 30_000;

/** The request never got an answer: nothing listens, the name does not resolve, or the time limit
 *  passed. A usage error: the command was pointed at the wrong place (one line, exit 2). */
export class ApiUnreachable extends UsageError {}

export interface ApiAnswer {
  status: number;
  ok: boolean;
  /** The JSON body, or null when there is none or it is not JSON. */
  body: Record<string, unknown> | null;
  /** `code: message` of an error envelope (or of the migration endpoint's `{message}`), else ''. */
  error: string;
  /** The error envelope's code, if any. */
  code?: string;
}

export interface ApiClient {
  /** The URL without trailing slashes, as messages name it. */
  base: string;
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer>;
}

export function apiClient(url: string, key: string, timeoutMs = API_TIMEOUT_MS): ApiClient {
  const base = url.replace(/\/+$/, '');
  return {
    base,
    async call(method, path, body) {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: { 'x-api-key': key, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new ApiUnreachable(`cannot reach ${base}: ${reasonOf(err, timeoutMs)}`);
      }
      const text = await res.text().catch(() => '');
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null; // not JSON: reported through `error` below
      }
      const json = isObject(parsed) ? parsed : null;
      const envelope = json && isObject(json.error) ? json.error : null;
      const code = envelope && typeof envelope.code === 'string' ? envelope.code : undefined;
      const message = envelope ? String(envelope.message ?? '') : json && typeof json.message === 'string' ? json.message : '';
      const error = res.ok ? '' : code ? `${code}: ${message}` : message || (json ? 'no error message' : text ? `not a JSON answer (${res.headers.get('content-type') ?? 'no content type'})` : 'an empty answer');
      return { status: res.status, ok: res.ok, body: json, error, code };
    },
  };
}

/** The `data` of an ok envelope, or undefined. */
export function dataOf<T>(answer: ApiAnswer): T | undefined {
  return answer.ok && answer.body && answer.body.data !== undefined ? (answer.body.data as T) : undefined;
}

function reasonOf(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${timeoutMs / 1000} s`;
  return describeCause(err);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
