/**
 * Prompt names are caller input, and every name counted as itself is a usage row kept for months:
 * a call refused before its name was looked at (a missing Mcp-Method header, a revision this server
 * does not speak, a session nobody opened) is counted under `(unknown)`, whatever it named. Through
 * the real Worker and UsageStore, read back as the admin reads usage.
 */
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { UNKNOWN_PROMPT } from '../../src/usage/count.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { envelope, LEGACY, modernHeaders, postInit, request } from '../helpers/protocol.js';
import { counts, send, settle } from '../helpers/usage.js';
import { ADMIN_TOKEN, MCP_URL, publish } from '../helpers/worker.js';

/** A modern prompts/get for `name`, its headers changed by `edit`; answers its HTTP status and JSON-RPC code. */
async function modernGet(name: string, meta: Record<string, unknown>, edit: (h: Record<string, string>) => void) {
  const headers = modernHeaders('prompts/get', name);
  edit(headers);
  const body = JSON.stringify(request('prompts/get', { name, _meta: envelope(meta) }));
  const res = await send(MCP_URL, { method: 'POST', headers, body });
  return { status: res.status, code: ((await res.json()) as any).error?.code };
}

/** What changed between two `counts` reads, zeros left out. */
const added = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .filter(([, v]) => v !== 0),
  );

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
});

describe('names of calls refused before routing', () => {
  it('are counted under (unknown), never as rows of their own', async () => {
    await settle();
    const before = await counts('prompt');
    const tag = Date.now();
    for (let i = 0; i < 3; i++) {
      const r = await modernGet(`zz-${tag}-${i}`, {}, (h) => delete h['mcp-method']);
      expect(r).toEqual({ status: 400, code: -32020 });
    }
    const late = '2099-01-01';
    const r = await modernGet(`zz-${tag}-v`, { 'io.modelcontextprotocol/protocolVersion': late }, (h) => {
      h['mcp-protocol-version'] = late;
    });
    expect(r).toEqual({ status: 400, code: -32022 });
    // A listed name, but an envelope refused (-32602 as an HTTP error) before the name was looked at.
    const listed = FIXTURE_PROMPTS[0]!.name;
    const noCaps = await modernGet(listed, { 'io.modelcontextprotocol/clientCapabilities': null }, () => {});
    expect(noCaps).toEqual({ status: 400, code: -32602 });
    const stale = postInit(request('prompts/get', { name: `zz-${tag}-s` }), { session: 'bogus', version: LEGACY });
    const res = await send(MCP_URL, stale);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe(-32001);
    await settle();

    const after = await counts('prompt');
    expect(Object.keys(after).filter((k) => k.startsWith('zz-'))).toEqual([]);
    expect(added(before, after)).toEqual({
      [`${UNKNOWN_PROMPT} prompts/get modern -32020`]: 3,
      [`${UNKNOWN_PROMPT} prompts/get modern -32022`]: 1,
      [`${UNKNOWN_PROMPT} prompts/get modern -32602`]: 1,
      [`${UNKNOWN_PROMPT} prompts/get legacy -32001`]: 1,
    });
  });
});

describe('calls that name no prompt', () => {
  it('are counted under (unknown) too, not under an empty name', async () => {
    await settle();
    const before = await counts('prompt');
    const headers = modernHeaders('prompts/get');
    const body = JSON.stringify(request('prompts/get', { _meta: envelope() }));
    const res = await send(MCP_URL, { method: 'POST', headers, body });
    expect(((await res.json()) as any).error.code).toBe(-32602);
    await settle();
    const after = await counts('prompt');
    expect(added(before, after)).toEqual({ [`${UNKNOWN_PROMPT} prompts/get modern -32602`]: 1 });
    expect(Object.keys(after).filter((k) => k.startsWith(' '))).toEqual([]);
  });
});

describe('a name several owners share', () => {
  it('is counted per owner served: the eng prompt as itself, the upstream one another caller gets as name@upstream', async () => {
    await publish([
      ...FIXTURE_PROMPTS,
      { name: 'shared', groups: ['eng'], messages: [{ role: 'user', content: { type: 'text', text: 'eng' } }] },
    ]);
    await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify([{ id: 'cx', url: 'https://cx.invalid/mcp', prefix: '' }]));
    forgetUpstreamConfig(env);
    await catalogWriter(env).upstreamsReported([
      { id: 'cx', prefix: '', prompts: [{ name: 'shared', origin: { upstream: 'cx', name: 'shared' } }] },
    ]);
    try {
      await settle();
      const before = await counts('prompt');
      // An outsider is served cx's `shared` (unreachable here: -32603 after routing); the admin the eng one.
      expect(await modernGet('shared', {}, () => {})).toEqual({ status: 200, code: -32603 });
      const asAdmin = await modernGet('shared', {}, (h) => (h.authorization = `Bearer ${ADMIN_TOKEN}`));
      expect(asAdmin).toEqual({ status: 200, code: undefined });
      await settle();
      expect(added(before, await counts('prompt'))).toEqual({
        'shared@cx prompts/get modern -32603': 1,
        'shared prompts/get modern ok': 1,
      });
    } finally {
      await env.PROMPTS.delete(UPSTREAMS_KEY);
      forgetUpstreamConfig(env);
      await catalogWriter(env).reconcileUpstreams();
    }
  });
});
