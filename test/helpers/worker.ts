/**
 * Protocol-shaped helpers for tests that run inside workerd: they speak to
 * the Worker through SELF exactly as an HTTP client would. The request
 * builders and checks themselves are shared with the e2e suites (protocol.ts).
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import type { CatalogQuery } from '../../src/catalog/store.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import type { PromptRecord } from '../../src/catalog/types.js';
import { app } from '../../src/routes/app.js';
import { LEGACY, openSessionWith, postInit, request, streamHeaders, type PostOptions } from './protocol.js';
import { readEvents, type EventStream } from './sse.js';

export { ACCEPT, expectError, request, type PostOptions } from './protocol.js';
export { readEvents, type EventStream };

export const MCP_URL = 'https://gateway.test/mcp';

/** What catalog/store.ts needs of a request, for tests that read the catalog the way a request of MCP_URL does. */
export function catalogQuery(refreshMs: number, waitUntil: (p: Promise<unknown>) => void): CatalogQuery {
  return { env, cfg: { catalogRefreshMs: refreshMs }, waitUntil, url: MCP_URL };
}

let revision = 0;

/**
 * Publishes exactly these records (pruning the rest) through the catalog
 * writer, the same path as the admin API. Identical content is not a change,
 * so each call also stamps a revision into the last fixture's text: every
 * call makes a new generation, and the listed names stay the same.
 */
export async function publish(prompts: PromptRecord[]): Promise<number> {
  revision += 1;
  const stamped = prompts.map((p, i) =>
    i === prompts.length - 1
      ? {
          ...p,
          messages: [
            ...p.messages,
            { role: 'assistant' as const, content: { type: 'text' as const, text: `rev ${revision}` } },
          ],
        }
      : p,
  );
  const r = await catalogWriter(env).publishSet(stamped, { prune: true, dryRun: false });
  if (!r.ok) throw new Error(`publish failed: ${JSON.stringify(r)}`);
  return r.generation;
}

export function post(body: unknown, opts: PostOptions = {}): Promise<Response> {
  return SELF.fetch(MCP_URL, postInit(body, opts));
}

export interface Session {
  id: string;
  version: string;
  /** Sends one request in this session and returns the parsed JSON-RPC reply. */
  call(method: string, params?: Record<string, unknown>): Promise<{ status: number; body: any }>;
}

export async function openSession(version = LEGACY, capabilities: Record<string, unknown> = {}): Promise<Session> {
  const { id, version: negotiated } = await openSessionWith((u, i) => SELF.fetch(u, i), MCP_URL, version, capabilities);
  return {
    id,
    version: negotiated,
    async call(method, params) {
      const r = await post(request(method, params), { session: id, version: negotiated });
      return { status: r.status, body: await r.json() };
    },
  };
}

/** GET /mcp as a session's standalone stream (optionally resuming). */
export async function openStream(session: Pick<Session, 'id' | 'version'>, lastEventId?: string): Promise<EventStream> {
  const response = await SELF.fetch(MCP_URL, { headers: streamHeaders(session.id, session.version, lastEventId) });
  return readEvents(response);
}

/** The real KV binding, with every call recorded. A new object is also a cold isolate's view: no catalog in memory. */
export function countingEnv(): { env: Env; reads: string[] } {
  const reads: string[] = [];
  const kv = new Proxy(env.PROMPTS, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      return typeof v === 'function'
        ? (...args: unknown[]) => (reads.push(`${String(prop)} ${String(args[0])}`), v.apply(target, args))
        : v;
    },
  });
  return { env: { ...env, PROMPTS: kv }, reads };
}

export const ADMIN_BASE = 'https://gateway.test/admin';
export const ADMIN_TOKEN = 'test-admin-token';

/**
 * A request to /admin through the app under `e` (an env whose AUTH differs from the test config's,
 * such as `apikey`, so a minted key is a principal), with `bearer` as its credential.
 */
export async function adminFetchIn(e: Env, method: string, path: string, bearer: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const ctx = createExecutionContext();
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const res = await app.fetch(new Request(ADMIN_BASE + path, init), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A request to /admin through SELF, with the test ADMIN_TOKEN unless `token` says otherwise (null: none). */
export function adminFetch(method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return SELF.fetch(ADMIN_BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
