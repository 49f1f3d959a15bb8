/**
 * End-to-end, modern protocol era (2026-07-28): the official SDK v2 client
 * (`@modelcontextprotocol/client`, versionNegotiation 'auto') against a real
 * `wrangler dev`. Its probe must pick the modern path (seen on the wire: no
 * initialize, no session), its response cache must honour the list's TTL,
 * and its listen stream must deliver list_changed after an admin publish.
 * A v1 client keeps working on the same gateway, and a second gateway that
 * aggregates an SDK v2 upstream (whose lists say ttlMs 0 / private) must
 * narrow its own merged list's hints accordingly.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  Client,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  StreamableHTTPClientTransport,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadPromptDir } from '../../cli/fs-source.js';
import { waitUntil } from '../helpers/live.js';
import { SESSION_ID_SHAPE } from '../helpers/protocol.js';
import { modernServer, type Running } from '../helpers/upstreams.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

const MODERN = '2026-07-28';
const EXPECTED_NAMES = loadPromptDir(join(PROJECT_ROOT, 'prompts'))
  .records.map((r) => r.name)
  .sort();

/** One HTTP exchange as the client's transport made it. */
interface Exchange {
  verb: string;
  sent: Headers;
  body:
    | { id?: string | number; method?: string; params?: { _meta?: Record<string, unknown> } & Record<string, unknown> }
    | undefined;
  status: number;
  received: Headers;
  /** The JSON-RPC result of a JSON reply (SSE replies are left to the client). */
  result?: Record<string, unknown>;
}

/** A `fetch` for the transport that keeps every request and JSON reply. */
function recorder() {
  const log: Exchange[] = [];
  const record = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await fetch(url, init);
    const ex: Exchange = {
      verb: init?.method ?? 'GET',
      sent: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      status: res.status,
      received: res.headers,
    };
    if ((res.headers.get('content-type') ?? '').includes('application/json'))
      ex.result = ((await res.clone().json()) as { result?: Record<string, unknown> }).result;
    log.push(ex);
    return res;
  };
  return { log, fetch: record, calls: (method: string) => log.filter((e) => e.body?.method === method) };
}

const opened: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((c) => c.close()));
});

async function connectModern(
  url: string,
  rec = recorder(),
): Promise<{ client: Client; rec: ReturnType<typeof recorder> }> {
  const client = new Client({ name: 'modern-e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  opened.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: rec.fetch }));
  return { client, rec };
}

const until = (check: () => boolean, ms: number, what: string) => waitUntil(check, what, ms);

describe('a gateway serving its own catalog', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({ vars: { NOTIFY_COALESCE_MS: 100 } });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  it("version negotiation 'auto' takes the modern path: discover, then stateless requests with the envelope", async () => {
    const { client, rec } = await connectModern(gw.mcpUrl);
    expect(client.getProtocolEra(), 'negotiated era').toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getDiscoverResult()?.supportedVersions, 'discover result kept by the client').toEqual([
      MODERN,
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
    ]);
    expect(client.getDiscoverResult()!.supportedVersions).toContain(MODERN);
    expect(client.getServerVersion()?.name, 'serverInfo from the discover _meta').toBe('promptgate');
    expect(client.getServerCapabilities()?.prompts?.listChanged).toBe(true);

    const got = await client.getPrompt({
      name: 'code_review',
      arguments: { code: 'let x = 1', language: 'typescript' },
    });
    expect(JSON.stringify(got.messages)).toContain('let x = 1');
    const done = await client.complete({
      ref: { type: 'ref/prompt', name: 'code_review' },
      argument: { name: 'language', value: 'ty' },
    });
    expect(done.completion.values[0]).toBe('typescript');

    expect(rec.log[0]?.body?.method, 'the first request is the server/discover probe').toBe('server/discover');
    expect(rec.calls('initialize'), 'no initialize on the modern path').toEqual([]);
    for (const ex of rec.log) {
      const m = ex.body?.method;
      expect(ex.verb, `${m}: only POSTs, no GET stream`).toBe('POST');
      expect(ex.status, `${m}: HTTP status`).toBe(200);
      expect(ex.sent.has('mcp-session-id'), `${m}: no session id sent`).toBe(false);
      expect(ex.received.has('mcp-session-id'), `${m}: no session id received`).toBe(false);
      expect(ex.sent.get('mcp-method'), `${m}: Mcp-Method header`).toBe(m);
      expect(ex.sent.get('mcp-protocol-version'), `${m}: MCP-Protocol-Version header`).toBe(MODERN);
      expect(ex.body?.params?._meta?.[PROTOCOL_VERSION_META_KEY], `${m}: _meta protocol version`).toBe(MODERN);
      expect(typeof ex.body?.params?._meta?.[CLIENT_CAPABILITIES_META_KEY], `${m}: _meta client capabilities`).toBe(
        'object',
      );
      expect(ex.result?.resultType, `${m}: resultType`).toBe('complete');
      expect(
        (ex.result?._meta as Record<string, { name?: string }>)?.[SERVER_INFO_META_KEY]?.name,
        `${m}: serverInfo in _meta`,
      ).toBe('promptgate');
    }
    expect(rec.calls('prompts/get')[0]?.sent.get('mcp-name'), 'Mcp-Name mirrors the prompt name').toBe('code_review');
  });

  it('honours the list TTL: a second listPrompts is served from the client cache', async () => {
    const { client, rec } = await connectModern(gw.mcpUrl);
    const first = await client.listPrompts();
    const second = await client.listPrompts();
    expect(first.prompts.map((p) => p.name).sort(), 'every published prompt').toEqual(EXPECTED_NAMES);
    expect(second.prompts, 'the cached list is the same list').toEqual(first.prompts);
    const lists = rec.calls('prompts/list');
    expect(lists, 'one prompts/list on the wire for two calls').toHaveLength(1);
    expect(lists[0]!.result, 'the gateway alone: configured TTL, shareable').toMatchObject({
      ttlMs: 60_000,
      cacheScope: 'public',
    });
  });

  it('a listen stream delivers list_changed after a publish, which evicts the cached list', async () => {
    const { client, rec } = await connectModern(gw.mcpUrl);
    const tags: unknown[] = [];
    client.setNotificationHandler(
      'notifications/prompts/list_changed',
      (n) => void tags.push(n.params?._meta?.[SUBSCRIPTION_ID_META_KEY]),
    );
    expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('modern_added');

    const sub = await client.listen({ promptsListChanged: true });
    expect(sub.honoredFilter.promptsListChanged, 'the server honours prompt-list changes').toBe(true);
    const listenId = rec.calls('subscriptions/listen')[0]?.body?.id;
    expect(typeof listenId, 'the listen request went out with an id').toBe('string');
    expect(tags, 'nothing is announced before anything changes').toEqual([]);

    const put = await fetch(`${gw.url}/admin/prompts/modern_added`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        description: 'added by the modern e2e test',
        messages: [{ role: 'user', content: { type: 'text', text: 'Hello' } }],
      }),
    });
    expect(put.status, await put.clone().text()).toBe(200);
    await until(() => tags.length > 0, 20_000, 'notifications/prompts/list_changed');
    // A deliberate absence window, not a wait for an event: nothing more may arrive. A quiet window can
    // only hide an extra notification on a slow machine, never invent one.
    await new Promise((r) => setTimeout(r, 500));
    expect(tags, 'one list_changed, tagged with the subscription id').toEqual([listenId]);

    const listsBefore = rec.calls('prompts/list').length;
    const after = await client.listPrompts();
    expect(rec.calls('prompts/list'), 'list_changed evicted the cached list').toHaveLength(listsBefore + 1);
    expect(after.prompts.map((p) => p.name)).toContain('modern_added');

    await sub.close();
    await expect(sub.closed).resolves.toBe('local');
    // close() also cancels the listen request; a modern notification is accepted with 202.
    await until(() => rec.calls('notifications/cancelled').length > 0, 2_000, 'notifications/cancelled');
    const cancel = rec.calls('notifications/cancelled')[0]!;
    expect(cancel.body?.params?.requestId, 'the cancel names the listen request').toBe(listenId);
    expect(cancel.status, 'notifications/cancelled is accepted').toBe(202);
  });

  it('a v1 SDK client still connects and lists on the same gateway', async () => {
    const client = new V1Client({ name: 'v1-e2e', version: '1.0.0' });
    opened.push(client);
    const transport = new V1Transport(new URL(gw.mcpUrl));
    await client.connect(transport);
    expect(transport.protocolVersion, 'legacy revision').toBe('2025-11-25');
    expect(transport.sessionId, 'legacy clients get a session').toMatch(SESSION_ID_SHAPE);
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(EXPECTED_NAMES));
  });
});

describe('a gateway aggregating an SDK v2 upstream', () => {
  let gw: Gateway;
  let upstream: Running;

  beforeAll(async () => {
    // createMcpHandler with no cacheHints configured answers prompts/list with ttlMs 0 / private.
    upstream = await modernServer(['plan', 'review']);
    const upstreams = [{ id: 'modern', url: upstream.url }];
    gw = await startGateway({ vars: { UPSTREAMS: JSON.stringify(upstreams), UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true' } });
  }, 120_000);

  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it("the upstream's ttlMs 0 / private narrows the merged list, so the client does not cache it", async () => {
    const { client, rec } = await connectModern(gw.mcpUrl);
    const first = await client.listPrompts();
    expect(first.prompts.map((p) => p.name)).toEqual(
      expect.arrayContaining(['code_review', 'modern.plan', 'modern.review']),
    );
    const second = await client.listPrompts();
    expect(second.prompts.map((p) => p.name).sort()).toEqual(first.prompts.map((p) => p.name).sort());
    const lists = rec.calls('prompts/list');
    expect(lists, 'an uncacheable list goes to the wire every time').toHaveLength(2);
    for (const [i, ex] of lists.entries())
      expect(ex.result, `prompts/list #${i + 1} hints`).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });
});

describe('a gateway whose listen streams live 2 s', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({ vars: { LISTEN_MAX_MS: 2_000 } });
  }, 120_000);

  afterAll(async () => {
    await gw?.stop();
  });

  it("ends a listen at LISTEN_MAX_MS as a drop ('remote'), so a client that follows the SDK's guide listens again", async () => {
    const { client, rec } = await connectModern(gw.mcpUrl);
    const sub = await client.listen({ promptsListChanged: true });
    expect(sub.honoredFilter.promptsListChanged).toBe(true);
    // 'graceful' would tell the client the subscription ended for good (the SDK guide: re-listen only on 'remote').
    await expect(sub.closed).resolves.toBe('remote');
    const again = await client.listen({ promptsListChanged: true });
    expect(again.honoredFilter.promptsListChanged, 'the next listen is served as the first').toBe(true);
    expect(rec.calls('subscriptions/listen')).toHaveLength(2);
    await again.close();
    await expect(again.closed).resolves.toBe('local');
  });
});
