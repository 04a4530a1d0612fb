import type { FastifyRequest } from 'fastify';
import { utf8Bytes } from './response-json.js';

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

/** `ok` with `data` given as JSON text in pieces: the same envelope as UTF-8, written without re-serialising the data. */
export function okJson(request: FastifyRequest, environment: Environment, data: string[]): Buffer {
  return utf8Bytes(['{"status":"ok","data":', ...data, `,"meta":${JSON.stringify(meta(request, environment))}}`]);
}

export function failure(request: FastifyRequest, environment: Environment, code: string, message: string, data?: unknown, details?: Record<string, unknown>) {
  return { status: 'error' as const, error: { code, message, ...details }, meta: meta(request, environment), ...(data === undefined ? {} : { data }) };
}
