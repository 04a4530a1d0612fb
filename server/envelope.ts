import type { FastifyRequest } from 'fastify';
import { JsonBytes } from './json-bytes.js';
import type { JsonData } from './response-json.js';

// The success and error envelopes. Every JSON response carries `meta`.

export const API_VERSION = '0.1.0';
export type Environment = 'local' | 'dev' | 'staging' | 'production';

export interface Meta {
  request_id: string;
  api_version: string;
  environment: Environment;
}

export function meta(request: FastifyRequest, environment: Environment): Meta {
  return { request_id: String(request.id), api_version: API_VERSION, environment };
}

export function ok<T>(request: FastifyRequest, environment: Environment, data: T) {
  return { status: 'ok' as const, data, meta: meta(request, environment) };
}

/** The buffer each response whose data writes itself (JsonData) is written into, then copied out at
 *  its size: one buffer as large as the largest response, reused (a response is written at once,
 *  never across two turns of the event loop), rather than a buffer per response sized by a guess. */
const scratch = new JsonBytes();
const OK_HEAD = Buffer.from('{"status":"ok","data":');

/** `ok` with `data` that writes itself as JSON: the same envelope as UTF-8, the data not re-serialised. */
export function okJson(request: FastifyRequest, environment: Environment, data: JsonData): Buffer {
  scratch.clear();
  scratch.bytes(OK_HEAD);
  data.write(scratch);
  scratch.text(`,"meta":${JSON.stringify(meta(request, environment))}}`);
  return scratch.copy();
}

export function failure(request: FastifyRequest, environment: Environment, code: string, message: string, data?: unknown, details?: Record<string, unknown>) {
  return { status: 'error' as const, error: { code, message, ...details }, meta: meta(request, environment), ...(data === undefined ? {} : { data }) };
}
