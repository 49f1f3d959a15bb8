/**
 * Generated hostile requests, each with its oracle: the HTTP status and
 * the JSON-RPC code (or admin/listing error code) the docs/protocol.md "Errors"
 * table documents, and the id the reply must echo. A small seeded PRNG
 * (mulberry32) makes every run reproducible from its seed.
 *
 * The oracle is written from the documented rules, not from the code:
 * guards (Origin 403, Accept 406, Content-Type 415, size 413), then JSON
 * (-32700, nesting -32600), then the era (a modern version header makes a
 * single message modern, SDK v2 rule), then the era's own ladder.
 */

export type Id = string | number;

export interface Expect {
  status: number;
  /** JSON-RPC error code; undefined when the reply is not an error. */
  code?: number;
  /** Admin and listing errors: `{error: {code}}`. */
  api?: string;
  /** The id the JSON-RPC body must carry; null: the body must carry none. Unset: not checked. */
  id?: Id | null;
  /** Further checks on a parsed body; returns what is wrong, or undefined. */
  check?: (body: any) => string | undefined;
}

export interface Case {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | { chunked: number };
  expect: Expect;
}

export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
export type Rng = ReturnType<typeof rng>;

export const ACCEPT = 'application/json, text/event-stream';
export const MODERN = '2026-07-28';
export const META_V = 'io.modelcontextprotocol/protocolVersion';
export const META_C = 'io.modelcontextprotocol/clientCapabilities';

/** Names that are Object.prototype members, traversal, control characters, unicode, overlong. */
export const HOSTILE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__defineGetter__',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2fadmin',
  'a/b',
  '/admin/prompts',
  '\u0000',
  'nul\u0000byte',
  'ünïcødé',
  '名前',
  '😀',
  '\u202eevil',
  '<script>alert(1)</script>',
  '{{who}}',
  '${who}',
  'x'.repeat(10_000),
  'GREET',
  'greet\u0000',
  'greet.',
  ' greet',
  'zeta/../greet',
  'null',
  'undefined',
];

/** The fixture prompt the oracle renders: 'Say hello to {{who}} in a {{ tone }} tone.' (who required). */
export const GREET_TEXT = (who: string, tone: string) => `Say hello to ${who} in a ${tone} tone.`;

/** The limits in vitest.config.ts (test/flow/hardening.test.ts pins them). */
export const LIMITS = {
  maxArguments: 64,
  maxArgumentBytes: 8192,
  maxArgumentsBytes: 16384,
  maxBody: 65536,
  depth: 64,
  /** Messages in one batch (docs/configuration.md, Limits). */
  batch: 100,
};

const utf8 = (s: string) => new TextEncoder().encode(s).length;

export function randomId(r: Rng): Id {
  return r.pick<() => Id>([
    () => r.int(0, 1e9),
    () => -r.int(1, 1e6),
    () => `id-${r.int(0, 1e6)}`,
    () => r.pick(HOSTILE_NAMES.filter((n) => n.length < 100)),
    () => Number.MAX_SAFE_INTEGER,
  ])();
}

export function hostileValue(r: Rng): string {
  return r.pick<() => string>([
    () => r.pick(HOSTILE_NAMES),
    () => '{{who}}{{tone}}{{ __proto__ }}',
    () => 'é'.repeat(r.int(1, 5000)),
    () => 'x'.repeat(r.pick([0, 1, 8191, 8192, 8193, 12_000])),
    () => '\u0000'.repeat(r.int(1, 50)),
    () => String.fromCharCode(...Array.from({ length: r.int(1, 40) }, () => r.int(0, 0xd7ff))),
  ])();
}

/** A random (mostly broken) JSON text: garbage, or a valid request cut short. Never valid JSON. */
export function malformedJson(r: Rng): string {
  for (;;) {
    const whole = JSON.stringify({
      jsonrpc: '2.0',
      id: r.int(1, 1000),
      method: 'prompts/get',
      params: { name: 'greet', arguments: { who: 'x' } },
    });
    const text = r.pick<() => string>([
      () => whole.slice(0, r.int(0, whole.length - 1)),
      () => whole.replace(/"/g, "'"),
      () => `${whole},`,
      () => `{"jsonrpc":"2.0","id":1,"method":"ping",}`,
      () => Array.from({ length: r.int(1, 200) }, () => String.fromCharCode(r.int(1, 0x7e))).join(''),
      () => '\u0000{}',
      () => '[1,2',
      () => '{"a":' + '['.repeat(r.int(1, 3000)),
      () => 'NaN',
      () => '{"id":1e999999999999,"jsonrpc":"2.0"',
    ])();
    try {
      JSON.parse(text);
    } catch {
      return text;
    }
  }
}

/** `{"a":…}` nested `depth` levels. */
export const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** What a prompts/get of "greet" with these arguments must give: an error, or exactly this text. */
export function greetOracle(args: unknown): { error: true } | { text: string } {
  if (args === undefined) return { error: true };
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: true };
  const entries = Object.entries(args);
  if (entries.length > LIMITS.maxArguments) return { error: true };
  let total = 0;
  for (const [, v] of entries) {
    if (typeof v !== 'string') return { error: true };
    const n = utf8(v);
    if (n > LIMITS.maxArgumentBytes) return { error: true };
    total += n;
  }
  if (total > LIMITS.maxArgumentsBytes) return { error: true };
  const own = (k: string) => (Object.hasOwn(args, k) ? (args as Record<string, string>)[k]! : undefined);
  const who = own('who');
  if (who === undefined) return { error: true };
  return { text: GREET_TEXT(who, own('tone') ?? '') };
}

/** Random arguments for greet: hostile names and values, sometimes too many, too large, or not strings. */
export function hostileArgs(r: Rng): unknown {
  const shape = r.int(0, 9);
  if (shape === 0) return r.pick<unknown>([[], 'who', 42, null, true, [['who', 'x']]]);
  const args: Record<string, unknown> = {};
  if (shape !== 1) args.who = r.chance(0.8) ? hostileValue(r) : r.pick<unknown>([1, null, {}, ['x']]);
  if (r.chance(0.5)) args.tone = hostileValue(r);
  const extra = shape === 2 ? r.int(60, 900) : r.int(0, 4);
  for (let i = 0; i < extra; i++) {
    const k = r.chance(0.5) ? r.pick(HOSTILE_NAMES.filter((n) => n.length < 100)) : `x${i}`;
    if (k === 'who' || k === 'tone') continue;
    // JSON.parse gives "__proto__" an own property; assign it the same way here.
    Object.defineProperty(args, k, { value: hostileValue(r), enumerable: true, writable: true, configurable: true });
  }
  return args;
}

/** The Mcp-Name header for a name: as it is when plain visible ASCII, else the base64 sentinel. */
export function mcpName(name: string): string {
  if (/^[\x21-\x7e]+$/.test(name)) return name;
  const bytes = new TextEncoder().encode(name);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `=?base64?${btoa(bin)}?=`;
}

/** A modern request body and its standard headers. */
export function modernRequest(
  id: Id,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = { [META_V]: MODERN, [META_C]: {} },
) {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
  const headers: Record<string, string> = {
    accept: ACCEPT,
    'content-type': 'application/json',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (method === 'prompts/get' && typeof params.name === 'string') headers['mcp-name'] = mcpName(params.name);
  return { body, headers };
}

export const rpcError = (status: number, code: number, id: Id | null): Expect => ({ status, code, id });
