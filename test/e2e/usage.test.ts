/**
 * Usage counts against a real `wrangler dev` under concurrent load: 200 prompts/get and
 * completion/complete calls, 20 at a time, from official SDK clients (legacy sessions) and plain
 * fetch (modern `_meta` clientInfo), are counted exactly, through the API and `promptgate usage`.
 * The test waits for the counts to arrive (bounded polling), never for a duration.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { envelope, modernHeaders, request } from '../helpers/protocol.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
const clients: Client[] = [];

beforeAll(async () => {
  gw = await startGateway({ vars: { USAGE_FLUSH_MS: 50, RATE_LIMITS: 'off' } });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await gw?.stop();
});

async function legacyClient(name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  clients.push(client);
  return client;
}

async function modern(name: string, method: string, params: Record<string, unknown>): Promise<void> {
  const body = request(method, {
    ...params,
    _meta: envelope({ 'io.modelcontextprotocol/clientInfo': { name, version: '1.0' } }),
  });
  const prompt = method === 'prompts/get' ? (params.name as string) : undefined;
  const res = await fetch(gw.mcpUrl, {
    method: 'POST',
    headers: modernHeaders(method, prompt),
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { error?: unknown };
  expect(res.status, JSON.stringify(json)).toBe(200);
  expect(json.error, JSON.stringify(json)).toBeUndefined();
}

async function usage(query: string): Promise<any> {
  const res = await fetch(`${gw.url}/admin/usage${query}`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
  expect(res.status).toBe(200);
  return res.json();
}

/** Polls until `done` holds (each poll is one request; bounded), and returns the last answer. */
async function until(query: string, done: (body: any) => boolean): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const body = await usage(query);
    if (done(body)) return body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`usage never reached the expected counts: ${JSON.stringify(await usage(query))}`);
}

const flat = (rows: any[]) =>
  Object.fromEntries(rows.map((r) => [`${r.key} ${r.method} ${r.era} ${r.outcome}`, r.count]));

const GET = { name: 'summarize', arguments: { text: 'A long thread.' } };
const COMPLETE = { ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'length', value: 's' } };

describe('usage under load', () => {
  it('counts 200 concurrent calls exactly, in the API and in promptgate usage', async () => {
    const legacy = { a: await legacyClient('sdk-a'), b: await legacyClient('sdk-b') };
    const jobs: (() => Promise<unknown>)[] = [];
    for (let i = 0; i < 50; i++) {
      const who = i % 2 ? 'b' : 'a';
      jobs.push(
        () => legacy[who].getPrompt(GET),
        () => legacy[who].complete(COMPLETE as Parameters<Client['complete']>[0]),
        () => modern(`fetch-${who}`, 'prompts/get', GET),
        () => modern(`fetch-${who}`, 'completion/complete', COMPLETE),
      );
    }
    expect(jobs).toHaveLength(200);
    // 20 at a time.
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < jobs.length) await jobs[next++]!();
      }),
    );

    const expected = {
      'summarize prompts/get legacy ok': 50,
      'summarize completion/complete legacy ok': 50,
      'summarize prompts/get modern ok': 50,
      'summarize completion/complete modern ok': 50,
    };
    const answer = await until('?by=prompt', (b) => b.totals.count >= 200);
    expect(flat(answer.rows)).toEqual(expected);
    expect(answer.totals).toEqual({
      count: 200,
      ok: 200,
      failed: 0,
      byMethod: { 'prompts/get': 100, 'completion/complete': 100 },
    });

    // A later call, in a later flush, proves no late flush adds to the 200.
    await modern('fetch-a', 'prompts/get', { name: 'code_review', arguments: { code: 'x' } });
    const later = await until('?by=prompt', (b) => b.rows.some((r: any) => r.key === 'code_review'));
    expect(later.totals.count).toBe(201);

    const byClient = flat((await usage('?by=client')).rows);
    expect(byClient['fetch-a/1.0 prompts/get modern ok']).toBe(26);
    expect(byClient['fetch-b/1.0 completion/complete modern ok']).toBe(25);
    expect(byClient['sdk-a/1.0 prompts/get legacy ok']).toBe(25);
    expect(byClient['sdk-b/1.0 completion/complete legacy ok']).toBe(25);

    const json = await runCli(gw, 'usage', '--json');
    expect(json.code, json.stderr).toBe(0);
    const cli = JSON.parse(json.stdout);
    expect(cli.by).toBe('prompt');
    expect(flat(cli.rows)).toEqual({ ...expected, 'code_review prompts/get modern ok': 1 });

    const table = await runCli(gw, 'usage', '--by', 'client', '--since', '1h');
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[1]).toMatch(/^\s+CLIENT\s+METHOD\s+ERA\s+OUTCOME\s+COUNT$/);
    expect(lines.find((l) => l.includes('fetch-a/1.0') && l.includes('prompts/get'))).toMatch(/modern\s+ok\s+26$/);
    expect(table.stdout).toContain('total 201: 201 ok, 0 failed');

    const bad = await runCli(gw, 'usage', '--since', 'last-week');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/HTTP 400.*since must be an ISO 8601 date/);
    expect((await runCli(gw, 'usage', '--by', 'era')).code).toBe(2);
  });
});
