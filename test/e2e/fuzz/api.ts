import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../../server/errors.js';
import { type TestApp, testApp } from '../../support/app.js';

// The in-process app the API targets drive with app.inject, with keys whose rate limit a fuzz
// run cannot reach (the limit itself is tested elsewhere; here it would only hide the routes).

export const FUZZ_KEYS = {
  all: 'fuzz-key-all-scopes-000000000000000000001',
  read: 'fuzz-key-rules-read-000000000000000000001',
  migration: 'fuzz-key-compat-external-0000000000000001',
};
const UNLIMITED = { requests: 100_000, window_seconds: 1 };

export function fuzzApp(): Promise<TestApp> {
  return testApp({
    RULES_API_KEYS: JSON.stringify([
      { id: 'fuzz-all', key: FUZZ_KEYS.all, scopes: ['*'], rate_limit: UNLIMITED },
      { id: 'fuzz-read', key: FUZZ_KEYS.read, scopes: ['rules:read'], rate_limit: UNLIMITED },
      { id: 'fuzz-migration', key: FUZZ_KEYS.migration, scopes: ['compat:external'], rate_limit: UNLIMITED },
    ]),
  });
}

export interface ErrorEnvelope {
  status: 'error';
  error: { code: ErrorCode; message: string };
  meta: { request_id: string };
}

/** A JSON body (every answer of the API is one). */
export function jsonOf(res: LightMyRequestResponse): Record<string, unknown> {
  expect(res.headers['content-type'], `${res.statusCode} ${res.body.slice(0, 200)}`).toMatch(/^application\/json/);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** The documented error envelope, with a code of `allowed` and the status that code has. */
export function expectErrorEnvelope(res: LightMyRequestResponse, allowed: readonly ErrorCode[]): ErrorEnvelope {
  const body = jsonOf(res) as unknown as ErrorEnvelope;
  expect(body, res.body.slice(0, 500)).toMatchObject({ status: 'error', error: { code: expect.any(String), message: expect.any(String) }, meta: { request_id: expect.any(String) } });
  expect(allowed, `${res.statusCode} ${body.error.code}: ${body.error.message}`).toContain(body.error.code);
  expect(res.statusCode, body.error.message).toBe(ERROR_STATUS[body.error.code]);
  return body;
}
