/**
 * Upstream faults through a real `wrangler dev`: one real local server
 * (127.0.0.1, node:http) per fault: it hangs, answers 500, answers
 * garbage, closes mid-reply, sends a 45 MB listing, sends an endless JSON
 * or SSE body, streams SSE one byte a second, redirects (to a loopback
 * canary standing in for the metadata address), and, healthy but hostile,
 * lists prototype, NUL, unicode and overlong names and serves `javascript:`
 * content. Beside them a healthy upstream with deny and alias rules is the
 * access boundary under test, in both eras.
 *
 * Timing: the strict bound (timeout + 50 ms) is asserted on the gateway's
 * own measure of each upstream operation (`ms` in the refresh report);
 * wall-clock figures seen by the client (which add wrangler's proxy and the
 * test machine's load) get a 1.5 s margin and are printed.
 *
 * The suite ends with one summary line of counts; each must be 0 but
 * `faultsSurvived` (= the number of faulty upstreams).
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, scriptedServer, type Behaviour, type Scripted } from '../helpers/fault-servers.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const TIMEOUT = 1000;
const CLIENT_MARGIN = 1500;
const FAULTS: Record<string, { list: Behaviour; all?: Behaviour; fault: string }> = {
  hang: { list: 'hang', fault: 'timeout' },
  error500: { list: 'error500', fault: 'http_500' },
  garbage: { list: 'garbage', fault: 'invalid_json' },
  cut: { list: 'cut', fault: 'closed' },
  slowsse: { list: 'slowsse', fault: 'timeout' },
  redirect: { list: 'redirect', fault: 'redirect_refused' },
  redirect_all: { list: 'ok', all: 'redirect', fault: 'redirect_refused' },
};
/**
 * Byte-heavy faults run on a gateway of their own: under `wrangler dev`
 * every upstream byte passes through the local runtime on the same two
 * cores, which would slow the light faults' timing down with them. One
 * endless upstream here keeps the strict timeout + 50 ms bound measurable on
 * a loaded machine (three heavy upstreams at once took up to 2.9 s of CPU to
 * read to their caps); test/e2e/upstream-bigreply.test.ts serves two 45 MB
 * listings, an endless JSON and an endless SSE reply at once and checks that
 * the gateway answers and its file descriptors stay bounded, and
 * test/node/upstream-guard.test.ts cuts each at the cap in the client itself.
 */
const HEAVY: Record<string, { list: Behaviour; fault: string }> = {
  endless: { list: 'endless', fault: 'too_large' },
};
const HEAVY_MARGIN = 4000;
const BAD_CONTENT = {
  messages: [
    { role: 'user', content: { type: 'text', text: 'kept' } },
    { role: 'user', content: { type: 'resource_link', uri: 'javascript:alert(1)', name: 'x' } },
    { role: 'user', content: { type: 'resource_link', uri: 'JaVaScRiPt:alert(1)', name: 'x' } },
    { role: 'user', content: { type: 'resource_link', uri: 'java\tscript:alert(1)', name: 'x' } },
    {
      role: 'user',
      content: {
        type: 'resource_link',
        uri: 'https://docs.example.com/a',
        name: 'doc',
        icons: [{ src: 'javascript:alert(1)' }, { src: 'https://docs.example.com/i.png' }],
      },
    },
    {
      role: 'user',
      content: { type: 'resource', resource: { uri: 'data:text/html,<script>alert(1)</script>', text: 'x' } },
    },
    { role: 'user', content: { type: 'video', uri: 'https://example.com/v' } },
    { role: 'user', content: { type: 'image', data: 'PHNjcmlwdD4=', mimeType: 'text/html' } },
    {
      role: 'assistant',
      content: { type: 'text', text: 'also kept', _meta: { 'evil/tracking': 'javascript:alert(1)' } },
    },
    // Data the SDK's clients cannot decode as base64 would fail the whole prompts/get: that block alone is dropped.
    { role: 'user', content: { type: 'image', data: 'not base64!!', mimeType: 'image/png' } },
    { role: 'user', content: { type: 'resource', resource: { uri: 'https://example.com/b', blob: 'not base64!!' } } },
    { role: 'user', content: { type: 'image', data: 'iVBORw==', mimeType: 'image/png' } },
    // A date the SDK's clients refuse (no such day) would fail the whole prompts/get: it alone is dropped.
    {
      role: 'user',
      content: { type: 'text', text: 'dated', annotations: { priority: 0.5, lastModified: '2026-02-30T12:00:00Z' } },
    },
  ],
};
const HOSTILE_NAMES: unknown[] = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'nul\u0000name',
  'ünïcødé',
  'y'.repeat(100),
  '../../etc/passwd',
  '{{placeholder}}',
  'x'.repeat(300),
  '',
  42,
];

/** Every count at zero: what a clean run shows, apart from the faults it survived. */
const CLEAN = {
  faultsSurvived: 0,
  wrongAnswers: 0,
  wrongFaultKinds: 0,
  slowAnswers: 0,
  canaryHits: 0,
  headerLeaks: 0,
  deniedServed: 0,
  unsanitised: 0,
  fiveHundreds: 0,
};
const counts = { ...CLEAN };
const figures: Record<string, number> = {};
const check = (ok: boolean, count: keyof typeof counts) => {
  if (!ok) counts[count]++;
  return ok;
};

let gw: Gateway;
let canary: Scripted;
let good: Scripted;
const faulty: Record<string, Scripted> = {};
const servers: Scripted[] = [];

async function v1(): Promise<Client> {
  const client = new Client({ name: 'faults-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  return client;
}

async function v2(): Promise<V2Client> {
  const client = new V2Client({ name: 'faults-e2e-modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new V2Transport(new URL(gw.mcpUrl)));
  return client;
}

interface StatusUpstream {
  id: string;
  state: string;
  prompts: number;
  lastError: string | null;
  fault: string | null;
}
async function status(): Promise<Record<string, StatusUpstream>> {
  const res = await fetch(`${gw.url}/status`);
  if (res.status >= 500) counts.fiveHundreds++;
  const body = (await res.json()) as { upstreams: StatusUpstream[] };
  return Object.fromEntries(body.upstreams.map((u) => [u.id, u]));
}

async function refresh(): Promise<Record<string, { ok: boolean; prompts: number; error?: string; ms?: number }>> {
  const res = await fetch(`${gw.url}/admin/upstreams/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  if (res.status >= 500) counts.fiveHundreds++;
  return (
    (await res.json()) as { upstreams: Record<string, { ok: boolean; prompts: number; error?: string; ms?: number }> }
  ).upstreams;
}

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
    return { code: 0, message: 'no error' };
  } catch (e) {
    return { code: (e as { code: number }).code, message: (e as Error).message };
  }
}

beforeAll(async () => {
  canary = await canaryServer();
  good = await scriptedServer({
    prompts: ['fine', 'secret', 'renamed', 'constructor', 'bad_content', 'broken_arg', 'crashy'].map((name) => ({
      name,
      arguments: [{ name: 'topic' }],
    })),
    completion: (name) => (name === 'bad_content' ? { values: ['a'], total: 2.5 } : undefined),
    getResult: (name) =>
      name === 'bad_content'
        ? BAD_CONTENT
        : { messages: [{ role: 'user', content: { type: 'text', text: `scripted ${name}` } }] },
    getError: (name) =>
      name === 'broken_arg'
        ? { code: -32602, message: 'Invalid arguments for prompt broken_arg: topic is required' }
        : name === 'crashy'
          ? { code: -32000, message: 'database is down' }
          : undefined,
  });
  const names = await scriptedServer({
    prompts: HOSTILE_NAMES.map((name) => ({
      name,
      description: `{{evil}} ${'d'.repeat(10_000)}`,
      icons: [{ src: 'javascript:alert(1)' }, { src: 'https://ok.example/i.png' }],
    })),
  });
  servers.push(canary, good, names);
  for (const [id, f] of Object.entries(FAULTS)) {
    faulty[id] = await scriptedServer({
      prompts: [{ name: 'p' }],
      list: f.list,
      get: f.list,
      ...(f.all ? { all: f.all } : {}),
      redirectTo: canary.url,
    });
    servers.push(faulty[id]);
  }
  const upstreams = [
    {
      id: 'good',
      url: good.url,
      timeout: TIMEOUT,
      headers: { 'X-Api-Key': 'k-good-123' },
      deny: ['secret'],
      aliases: { renamed: 'fresh' },
    },
    { id: 'names', url: names.url, timeout: TIMEOUT },
    ...Object.keys(FAULTS).map((id) => ({
      id,
      url: faulty[id]!.url,
      timeout: TIMEOUT,
      headers: { 'X-Api-Key': `k-${id}` },
    })),
  ];
  gw = await startGateway({
    pageSize: 100,
    vars: { UPSTREAMS: JSON.stringify(upstreams), UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true' },
  });
}, 120_000);

afterAll(async () => {
  console.log(`upstream faults: ${JSON.stringify(counts)} figures(ms): ${JSON.stringify(figures)}`);
  await gw?.stop();
  await Promise.all(servers.map((s) => s.close()));
});

describe('upstream faults', () => {
  it('the first prompts/list answers within the timeout with every healthy prompt and none of the failing upstreams', async () => {
    const client = await v1();
    const t0 = performance.now();
    const { prompts } = await client.listPrompts();
    figures.coldList = Math.round(performance.now() - t0);
    check(figures.coldList < TIMEOUT + CLIENT_MARGIN, 'slowAnswers');
    const names = prompts.map((p) => p.name);
    for (const n of [
      'good.fine',
      'good.fresh',
      'good.constructor',
      'good.bad_content',
      'names.__proto__',
      'names.constructor',
      'names.toString',
    ])
      check(names.includes(n), 'wrongAnswers');
    for (const id of Object.keys(FAULTS)) check(!names.some((n) => n.startsWith(`${id}.`)), 'wrongAnswers');
    expect(counts).toMatchObject({ wrongAnswers: 0, slowAnswers: 0 });
    expect(figures.coldList).toBeLessThan(TIMEOUT + CLIENT_MARGIN);
    await client.close();
  });

  it('/status marks each failing upstream and names its fault', async () => {
    let s = await status();
    // The gateway's own upstream objects list in the background after the cold list: wait for that event.
    for (let i = 0; i < 100 && Object.keys(FAULTS).some((id) => s[id]?.state !== 'failing' || !s[id]?.fault); i++) {
      await new Promise((r) => setTimeout(r, 200));
      s = await status();
    }
    for (const [id, f] of Object.entries(FAULTS)) {
      expect(s[id], id).toMatchObject({ state: 'failing', prompts: 0, fault: f.fault });
      if (check(s[id]?.fault === f.fault, 'wrongFaultKinds')) counts.faultsSurvived++;
      expect(s[id]!.lastError).toMatch(new RegExp(`^${f.fault}: `));
    }
    expect(s.good).toMatchObject({ state: 'healthy', prompts: 6, fault: null });
    expect(s.names).toMatchObject({ state: 'healthy', fault: null });
  });

  it('each upstream listing ends within its timeout + 50 ms, as the gateway measures it', async () => {
    const r = await refresh();
    for (const [id, f] of Object.entries(FAULTS)) {
      figures[`refresh.${id}`] = r[id]!.ms!;
      check(r[id]!.ms! <= TIMEOUT + 50, 'slowAnswers');
      check(r[id]!.ok === false && r[id]!.error!.startsWith(`${f.fault}: `), 'wrongFaultKinds');
      expect(r[id], id).toMatchObject({ ok: false, error: expect.stringMatching(new RegExp(`^${f.fault}: `)) });
      expect(r[id]!.ms, id).toBeLessThanOrEqual(TIMEOUT + 50);
    }
    expect(r.good).toMatchObject({ ok: true, prompts: 6 });
  });

  it('prompts/get of a failing upstream prompt is -32603 naming the upstream, within its timeout', async () => {
    const client = await v1();
    for (const id of Object.keys(FAULTS)) {
      const t0 = performance.now();
      const err = await rpcError(client.getPrompt({ name: `${id}.p` }));
      const took = Math.round(performance.now() - t0);
      figures[`get.${id}`] = took;
      check(err.code === -32603 && err.message.includes(`"${id}"`), 'wrongAnswers');
      check(took < TIMEOUT + CLIENT_MARGIN, 'slowAnswers');
      expect(err.code, id).toBe(-32603);
      expect(err.message, id).toContain(`Upstream "${id}"`);
      expect(took, id).toBeLessThan(TIMEOUT + CLIENT_MARGIN);
    }
    await client.close();
  });

  it('once the breaker is open, lastError still leads with the real fault', async () => {
    // Each failed refresh counts; from the third on the breaker opens for 1, 2, 4... s: refresh until every one shows it.
    let r = await refresh();
    for (let i = 0; i < 8 && Object.keys(FAULTS).some((id) => !/circuit open/.test(r[id]!.error ?? '')); i++)
      r = await refresh();
    const s = await status();
    for (const [id, f] of Object.entries(FAULTS)) {
      expect(r[id]!.error, id).toMatch(
        new RegExp(`^${f.fault}: .*\\(circuit open after \\d+ failures; next try in \\d+ s\\)$`),
      );
      expect(s[id]!.fault, id).toBe(f.fault);
    }
  });

  it('a redirect is never followed: nothing reaches the canary, no configured header leaves its origin', async () => {
    counts.canaryHits = canary.seen.length;
    counts.headerLeaks = canary.seen.filter((r) =>
      Object.keys(r.headers).some((h) => h === 'x-api-key' || h === 'authorization'),
    ).length;
    expect(canary.seen).toEqual([]);
    // The redirecting upstreams were asked (with their own header), and answered 302.
    expect(faulty.redirect!.seen.some((r) => r.headers['x-api-key'] === 'k-redirect')).toBe(true);
    expect(faulty.redirect_all!.seen.length).toBeGreaterThan(0);
  });

  it('hostile names are listed safely and do not break their upstream', async () => {
    const client = await v1();
    const listed = (await client.listPrompts()).prompts.filter((p) => p.name.startsWith('names.'));
    const s = await status();
    expect(s.names!.state).toBe('healthy');
    // '' , 42 and the 300-character name are dropped; the rest are listed with safe names.
    expect(listed.length).toBe(HOSTILE_NAMES.length - 3);
    for (const p of listed) {
      check(/^[A-Za-z0-9_.-]{1,64}$/.test(p.name) && (p.description ?? '').length <= 4000, 'unsanitised');
      check(!JSON.stringify(p).toLowerCase().includes('javascript:'), 'unsanitised');
    }
    expect(counts.unsanitised).toBe(0);
    const got = await client.getPrompt({ name: 'names.__proto__' });
    expect(got.messages[0]!.content).toEqual({ type: 'text', text: 'scripted __proto__' });
    const ctor = await client.getPrompt({ name: 'good.constructor' });
    expect(ctor.messages[0]!.content).toEqual({ type: 'text', text: 'scripted constructor' });
    await client.close();
  });

  it('upstream get content is sanitised: no javascript: URI, no unknown content type', async () => {
    const client = await v1();
    const got = await client.getPrompt({ name: 'good.bad_content' });
    const text = JSON.stringify(got).toLowerCase();
    check(
      !text.includes('javascript') &&
        !text.includes('video') &&
        !text.includes('text/html') &&
        !text.includes('evil/tracking'),
      'unsanitised',
    );
    expect(got.messages.map((m) => m.content)).toEqual([
      { type: 'text', text: 'kept' },
      {
        type: 'resource_link',
        uri: 'https://docs.example.com/a',
        name: 'doc',
        icons: [{ src: 'https://docs.example.com/i.png' }],
      },
      { type: 'text', text: 'also kept' },
      { type: 'image', data: 'iVBORw==', mimeType: 'image/png' },
      { type: 'text', text: 'dated', annotations: { priority: 0.5 } },
    ]);
    await client.close();
  });

  it('an upstream completion total that is no integer is dropped: the SDK client takes the values', async () => {
    const client = await v1();
    const done = await client.complete({
      ref: { type: 'ref/prompt', name: 'good.bad_content' },
      argument: { name: 'x', value: '' },
    });
    expect(done.completion).toEqual({ values: ['a'], hasMore: false });
    await client.close();
  });
});

describe('aggregation keeps its promises', () => {
  it('a denied prompt, or an aliased one under its original name, does not exist in any method or era; the upstream is never asked', async () => {
    const legacy = await v1();
    const modern = await v2();
    for (const [era, client] of [
      ['legacy', legacy],
      ['modern', modern],
    ] as const) {
      const names = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(names, era).not.toContain('good.secret');
      expect(names, era).not.toContain('good.renamed');
      for (const name of ['good.secret', 'good.renamed']) {
        const get = await rpcError(client.getPrompt({ name, arguments: { topic: 'x' } }));
        const done = await rpcError(
          client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: 'topic', value: '' } }),
        );
        for (const e of [get, done]) {
          check(e.code === -32602 && e.message.includes(`Unknown prompt "${name}"`), 'deniedServed');
          expect(e, `${era} ${name}`).toEqual({
            code: -32602,
            message: expect.stringContaining(`Unknown prompt "${name}"`),
          });
        }
      }
      const fresh = await client.getPrompt({ name: 'good.fresh', arguments: { topic: 'x' } });
      expect(fresh.messages[0]!.content, era).toEqual({ type: 'text', text: 'scripted renamed' });
    }
    const asked = good.seen
      .filter((r) => r.rpc === 'prompts/get' || r.rpc === 'completion/complete')
      .map((r) => r.name);
    counts.deniedServed += asked.filter((n) => n === 'secret').length;
    expect(asked).not.toContain('secret');
    // `renamed` reached the upstream only as the alias `good.fresh`.
    expect(asked.filter((n) => n === 'renamed').length).toBe(2);
    await legacy.close();
    await modern.close();
  });

  it('-32602 names the prompt the client asked for; other upstream errors name the upstream', async () => {
    const client = await v1();
    const bad = await rpcError(client.getPrompt({ name: 'good.broken_arg' }));
    expect(bad).toEqual({
      code: -32602,
      message: expect.stringContaining('Invalid arguments for prompt good.broken_arg: topic is required'),
    });
    const crash = await rpcError(client.getPrompt({ name: 'good.crashy' }));
    expect(crash).toEqual({ code: -32603, message: expect.stringContaining('Upstream "good": database is down') });
    await client.close();
  });
});

describe('byte-heavy upstreams: memory stays bounded', () => {
  let gw2: Gateway;
  let fine: Scripted;
  const heavy: Record<string, Scripted> = {};
  beforeAll(async () => {
    await gw.stop();
    fine = await scriptedServer({ prompts: [{ name: 'fine' }] });
    servers.push(fine);
    for (const [id, f] of Object.entries(HEAVY)) {
      heavy[id] = await scriptedServer({ prompts: [{ name: 'p' }], list: f.list, get: f.list });
      servers.push(heavy[id]);
    }
    const upstreams = [
      { id: 'fine', url: fine.url, timeout: TIMEOUT },
      ...Object.keys(HEAVY).map((id) => ({ id, url: heavy[id]!.url, timeout: TIMEOUT })),
    ];
    gw2 = await startGateway({
      pageSize: 100,
      vars: { UPSTREAMS: JSON.stringify(upstreams), UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true' },
    });
    gw = gw2;
  }, 120_000);

  it('the first list answers with the healthy prompts; /status says too_large; gets are -32603 naming the upstream', async () => {
    const client = await v1();
    const t0 = performance.now();
    // A bounded wait: an answer that never comes counts as slow (and wrong) instead of hanging the suite.
    const { prompts } = await client.listPrompts(undefined, { timeout: TIMEOUT + HEAVY_MARGIN });
    figures.heavyColdList = Math.round(performance.now() - t0);
    check(figures.heavyColdList < TIMEOUT + HEAVY_MARGIN, 'slowAnswers');
    const names = prompts.map((p) => p.name);
    check(
      names.includes('fine.fine') && !Object.keys(HEAVY).some((id) => names.some((n) => n.startsWith(`${id}.`))),
      'wrongAnswers',
    );
    expect(names).toContain('fine.fine');
    let s = await status();
    for (let i = 0; i < 100 && Object.keys(HEAVY).some((id) => s[id]?.state !== 'failing' || !s[id]?.fault); i++) {
      await new Promise((r) => setTimeout(r, 200));
      s = await status();
    }
    for (const [id, f] of Object.entries(HEAVY)) {
      if (check(s[id]?.fault === f.fault, 'wrongFaultKinds')) counts.faultsSurvived++;
      expect(s[id], id).toMatchObject({ state: 'failing', fault: f.fault });
    }
    const r = await refresh();
    for (const [id, f] of Object.entries(HEAVY)) {
      figures[`refresh.${id}`] = r[id]!.ms!;
      check(r[id]!.ms! <= TIMEOUT + 50, 'slowAnswers');
      expect(r[id], id).toMatchObject({ ok: false, error: expect.stringMatching(new RegExp(`^${f.fault}: `)) });
    }
    for (const id of Object.keys(HEAVY)) {
      const t1 = performance.now();
      const err = await rpcError(client.getPrompt({ name: `${id}.p` }, { timeout: TIMEOUT + HEAVY_MARGIN }));
      figures[`get.${id}`] = Math.round(performance.now() - t1);
      check(err.code === -32603 && err.message.includes(`Upstream "${id}"`), 'wrongAnswers');
      check(figures[`get.${id}`]! < TIMEOUT + HEAVY_MARGIN, 'slowAnswers');
      expect(err.code, id).toBe(-32603);
    }
    await client.close();
  });

  it('memory stays bounded: a huge or endless answer is cut at the byte cap, the gateway stays healthy', async () => {
    for (const id of Object.keys(HEAVY)) {
      const server = heavy[id]!;
      const lists = server.seen.filter((r) => r.rpc === 'prompts/list').length;
      const before = server.bytesSent();
      await new Promise((r) => setTimeout(r, 500));
      figures[`bytesPerList.${id}`] = Math.round(server.bytesSent() / Math.max(1, lists));
      // Nothing is still being read, and no reply was read much past the 4 MiB cap (socket buffers aside).
      expect(server.bytesSent() - before, id).toBeLessThan(1_000_000);
      expect(server.bytesSent() / lists, id).toBeLessThan(16 * 1024 * 1024);
    }
    const client = await v1();
    const got = await client.getPrompt({ name: 'fine.fine' });
    expect(got.messages[0]!.content).toEqual({ type: 'text', text: 'scripted fine' });
    await client.close();
  });

  it('reports its counts', () => {
    expect(counts).toEqual({ ...CLEAN, faultsSurvived: Object.keys(FAULTS).length + Object.keys(HEAVY).length });
  });
});
