/**
 * Usage counts as the flow suites read them back. Requests go through the Worker's fetch in this
 * isolate (its tally is the one that flushes), each with an execution context of its own, so a test
 * waits for the flushes those requests armed (waitOnExecutionContext), never for a duration.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import worker from '../../src/index.js';
import { ADMIN_TOKEN } from './worker.js';

/** A short flush interval; the tests wait on the flushes, so its length only sets how fast they run. */
export const usageEnv = { ...env, USAGE_FLUSH_MS: '20' } as unknown as Env;

/** Every execution context handed out since the last settle(). */
let contexts: ExecutionContext[] = [];

export async function send(url: string, init: RequestInit, e: Env = usageEnv): Promise<Response> {
  const ctx = createExecutionContext();
  contexts.push(ctx);
  return worker.fetch(new Request(url, init), e, ctx);
}

/** Waits until every armed flush of the requests sent so far has run (each lives in some request's context). */
export async function settle(): Promise<void> {
  const pending = contexts;
  contexts = [];
  await Promise.all(pending.map((ctx) => waitOnExecutionContext(ctx)));
}

/** GET /admin/usage with this query, as the admin reads it. */
export async function usage(query = ''): Promise<any> {
  const res = await send(`https://gateway.test/admin/usage${query}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The store's counts as a flat `key method era outcome → count` map, for exact comparison. */
export async function counts(by: 'prompt' | 'client'): Promise<Record<string, number>> {
  const { rows } = await usage(`?by=${by}`);
  return Object.fromEntries(rows.map((r: any) => [`${r.key} ${r.method} ${r.era} ${r.outcome}`, r.count]));
}
