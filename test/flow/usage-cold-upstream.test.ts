/**
 * The first prompts/get of an upstream nobody has listed yet is routed by a catalog merged for it
 * on the spot (catalog/upstreams/cold.ts), which the isolate serves only after the response; it is
 * still counted under the prompt's name, not `(unknown)`. The upstream is a real SDK server in this
 * isolate (test/helpers/in-isolate-upstream.ts), read back as the admin reads usage.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:test';
import { servedCatalog } from '../../src/catalog/store.js';
import { upstreamStub } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig } from '../../src/catalog/upstreams/config.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { envelope, modernHeaders, request } from '../helpers/protocol.js';
import { counts, send, settle, usageEnv } from '../helpers/usage.js';
import { MCP_URL, publish } from '../helpers/worker.js';

const upstream = sdkUpstream(() => {
  const s = new McpServer({ name: 'never-listed', version: '1.0.0' });
  s.registerPrompt('hello', { description: 'says hello' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'hello from nl' } }],
  }));
  return s;
});

async function modernGet(name: string) {
  const body = JSON.stringify(request('prompts/get', { name, _meta: envelope() }));
  return send(MCP_URL, { method: 'POST', headers: modernHeaders('prompts/get', name), body });
}

describe('a prompt of a never-listed upstream', () => {
  let unmount: () => Promise<void>;
  beforeAll(async () => {
    await publish(FIXTURE_PROMPTS);
    // A warm isolate, whose catalog was loaded before the upstream was configured.
    expect((await modernGet(FIXTURE_PROMPTS[0]!.name)).status).toBe(200);
    const undo = await mountInIsolate('nl.example', upstream, { id: 'nl', prefix: 'nl' });
    // The upstream list is cached per env object: these requests carry usageEnv, not env, and the
    // upstream's object read it before the upstream was added. Neither lists the upstream.
    forgetUpstreamConfig(usageEnv);
    await upstreamStub(env, 'nl').reconcile('nl');
    unmount = () => undo().then(() => forgetUpstreamConfig(usageEnv));
  });
  afterAll(() => unmount());

  it('is counted under its name on the call that lists the upstream', async () => {
    await settle();
    const before = await counts('prompt');
    // Routed by the merged catalog: the isolate serves none with this upstream in it yet.
    expect(servedCatalog(env.PROMPTS)?.upstreamIds().has('nl')).toBe(false);
    const res = await modernGet('nl.hello');
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.error, JSON.stringify(body)).toBeUndefined();
    expect(body.result.messages[0].content.text).toBe('hello from nl');
    await settle();
    const after = await counts('prompt');
    const added = Object.entries(after).filter(([k, n]) => n !== (before[k] ?? 0));
    expect(Object.fromEntries(added.map(([k, n]) => [k, n - (before[k] ?? 0)]))).toEqual({
      'nl.hello@nl prompts/get modern ok': 1,
    });
  });
});
