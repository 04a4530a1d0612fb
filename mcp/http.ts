import type { AdapterConfig } from './config.js';

// The adapter's only way to the API: one HTTP request per call (plus at most one automatic retry
// of a short rate limit), bounded by the configured timeout, with every failure shaped into the
// `error` object that tool results carry.

export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, already percent-encoded, e.g. `/v1/rules/us%3Astatutes/7/2017/a%23snap_allotment`. */
  path: string;
  /** JSON body; omitted for GETs and for POSTs the API defines without a body. */
  body?: unknown;
}

/** Why a call produced no API envelope: the API rejected it, or it never got an answer. */
export type ApiFailure =
  /** A non-2xx answer; `api_response` is the API's error envelope (or its raw text if not JSON). */
  | { message: string; http_status: number; api_response: unknown; retry_after?: number }
  | { message: string; url: string; timeout_ms: number }
  | { message: string; url: string; cause: string }
  /** A tool argument refused before any request (a path parameter that would leave the tool's endpoint). */
  | { message: string; argument: string };

export type ApiOutcome = { ok: true; envelope: Record<string, unknown> } | { ok: false; error: ApiFailure };

/** Rate limits at most this long are waited out and retried once; longer ones go back to the caller. */
export const MAX_RETRY_AFTER_SECONDS = 10;

// setTimeout fires at once for delays above 2^31-1 ms, so longer timeouts are capped (about 24.8 days).
const MAX_TIMER_MS = 2 ** 31 - 1;

interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export class ApiClient {
  constructor(private readonly config: AdapterConfig) {}

  async call(request: ApiRequest): Promise<ApiOutcome> {
    const url = `${this.config.baseUrl}${request.path}`;
    let attempt = await this.send(url, request);
    if ('answer' in attempt && isRateLimited(attempt.answer)) {
      const wait = retryAfterSeconds(attempt.answer);
      if (wait !== undefined && wait <= MAX_RETRY_AFTER_SECONDS) {
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
        attempt = await this.send(url, request);
      }
    }
    return 'answer' in attempt ? this.outcome(request, url, attempt.answer) : { ok: false, error: attempt.failure };
  }

  /** One request; the timeout covers reading the body too, so a stalled body also times out. */
  private async send(url: string, request: ApiRequest): Promise<{ answer: HttpAnswer } | { failure: ApiFailure }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.min(this.config.timeoutMs, MAX_TIMER_MS));
    try {
      const response = await fetch(url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: controller.signal,
      });
      return { answer: { status: response.status, headers: response.headers, body: parseBody(await response.text()) } };
    } catch (err) {
      const what = `${request.method} ${url}`;
      if (controller.signal.aborted) {
        const timeoutMs = this.config.timeoutMs;
        return { failure: { message: `${what} timed out: no complete answer within the ${timeoutMs} ms timeout (SERVICE_API_TIMEOUT_MS)`, url, timeout_ms: timeoutMs } };
      }
      const cause = describeCause(err);
      return { failure: { message: `${what} failed: ${cause} (is the API reachable at SERVICE_API_BASE_URL=${this.config.baseUrl}?)`, url, cause } };
    } finally {
      clearTimeout(timer);
    }
  }

  private outcome(request: ApiRequest, url: string, answer: HttpAnswer): ApiOutcome {
    const what = `${request.method} ${url}`;
    if (answer.status >= 200 && answer.status < 300) {
      if (isRecord(answer.body)) return { ok: true, envelope: answer.body };
      return { ok: false, error: { message: `${what} answered ${answer.status} without a JSON object body`, http_status: answer.status, api_response: answer.body } };
    }
    const apiError = errorOf(answer.body);
    const reason = apiError ? `${answer.status} ${apiError.code}: ${apiError.message}` : `HTTP ${answer.status}`;
    const hint = answer.status === 401 && !this.config.apiKey ? ' (no SERVICE_API_KEY is configured for this adapter)' : '';
    const error: ApiFailure = { message: `${what} was rejected with ${reason}${hint}`, http_status: answer.status, api_response: answer.body };
    const retryAfter = answer.status === 429 ? retryAfterSeconds(answer) : undefined;
    return { ok: false, error: retryAfter === undefined ? error : { ...error, retry_after: retryAfter } };
  }
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `error` of an API error envelope, when the body is one. */
function errorOf(body: unknown): { code: string; message: string } | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return undefined;
  const { code, message } = body.error;
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
}

/** A per-key rate limit; `auth_throttled` (also 429) is left alone, since retrying it only prolongs the throttle. */
function isRateLimited(answer: HttpAnswer): boolean {
  return answer.status === 429 && (errorOf(answer.body)?.code ?? 'rate_limited') === 'rate_limited';
}

/** Seconds to wait from `retry-after` (delta seconds or an HTTP date), else the envelope's `data.retry_after_seconds`. */
function retryAfterSeconds(answer: HttpAnswer): number | undefined {
  const header = answer.headers.get('retry-after')?.trim();
  if (header) {
    if (/^\d+(\.\d+)?$/.test(header)) return Number(header);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  const data = isRecord(answer.body) ? answer.body.data : undefined;
  const seconds = isRecord(data) ? data.retry_after_seconds : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** fetch reports network failures as `TypeError: fetch failed`; the useful part is in `cause`. */
/** Why a request got no answer, as the network layer says it (both refusals of `localhost`). */
export function describeCause(err: unknown): string {
  const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
  // connecting to `localhost` tries ::1 and 127.0.0.1 and reports both refusals at once
  if (cause instanceof AggregateError && cause.errors.length) return cause.errors.map(describeCause).join('; ');
  if (cause instanceof Error) return cause.message || (cause as NodeJS.ErrnoException).code || cause.name;
  return String(cause);
}
