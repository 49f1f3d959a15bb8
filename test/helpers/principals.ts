/**
 * Principals and request scopes made by hand (lib/scope.ts), for tests of what the layers below
 * the routes do with a principal before access control sets one: views, session binding, streams.
 */
import { env } from 'cloudflare:test';
import { ANONYMOUS } from '../../src/auth/principal.js';
import { configOf } from '../../src/lib/config.js';
import { RequestRecord } from '../../src/lib/record.js';
import type { AuthMethod, Principal, RequestScope } from '../../src/lib/scope.js';
import { modernPost } from '../../src/rpc/modern.js';

export function principal(
  id: string,
  groups: string[],
  opts: { admin?: boolean; method?: AuthMethod; expiresAt?: number; recheck?: () => boolean | Promise<boolean> } = {},
): Principal {
  return {
    id,
    method: opts.method ?? 'oauth',
    name: id,
    groups,
    scopes: new Set(['prompts:read']),
    admin: opts.admin ?? false,
    expiresAt: opts.expiresAt,
    recheck: opts.recheck ?? (() => true),
  };
}

/** A RequestScope as routes/scope.ts builds one, with background work collected in `pending`. */
export interface TestScope extends RequestScope {
  readonly pending: Promise<unknown>[];
}

export function scope(
  p: Principal | undefined,
  opts: { headers?: Record<string, string>; env?: Env; url?: string } = {},
): TestScope {
  const e = opts.env ?? env;
  const headers = Object.fromEntries(Object.entries(opts.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const pending: Promise<unknown>[] = [];
  return {
    env: e,
    cfg: configOf(e),
    secret: 'test-signing-secret',
    waitUntil: (x) => void pending.push(x),
    url: opts.url ?? 'https://gateway.test/mcp',
    header: (name) => headers[name],
    sessionId: headers['mcp-session-id'],
    protocolVersion: headers['mcp-protocol-version'],
    principal: p ?? ANONYMOUS,
    record: new RequestRecord(),
    signal: undefined,
    pending,
  };
}

/**
 * A 2026-07-28 request as principal `p` (undefined: anonymous), straight through modernPost with
 * the standard headers its body implies; resolves its JSON reply.
 */
export async function modernAs(p: Principal | undefined, method: string, params: Record<string, unknown>) {
  return (await modernScoped(p, method, params)).body;
}

/** modernAs, with the request's scope too (what its record says of it: cache layer, upstream). */
export async function modernScoped(
  p: Principal | undefined,
  method: string,
  params: Record<string, unknown>,
): Promise<{ body: any; scope: TestScope }> {
  const V = '2026-07-28';
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  };
  // resources/read is named by its URI, as every other named method is by its name.
  const named = method === 'resources/read' ? params.uri : params.name;
  const headers = {
    'mcp-protocol-version': V,
    'mcp-method': method,
    ...(named ? { 'mcp-name': String(named) } : {}),
  };
  const q = scope(p, { headers });
  return { body: await (await modernPost(q, body)).json(), scope: q };
}
