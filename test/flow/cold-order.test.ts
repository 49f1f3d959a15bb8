/**
 * The read path's merge of a never-listed upstream (catalog/upstreams/cold.ts) names the same owner
 * of a shared name as the writer's snapshot does: the upstream configured first, wherever the
 * never-listed one falls in the list. The never-listed upstream is a real SDK server in this isolate
 * (test/helpers/in-isolate-upstream.ts); the one listed before is reported as its object reports.
 */
import { env } from 'cloudflare:test';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listing } from '../../src/catalog/listing.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY, validateUpstreams } from '../../src/catalog/upstreams/config.js';
import { reported } from '../../src/catalog/upstreams/report.js';
import { mountInIsolate, sdkUpstream } from '../helpers/in-isolate-upstream.js';
import { scope } from '../helpers/principals.js';

const V = '2026-07-28';

const upstream = sdkUpstream(() => {
  const server = new McpServer({ name: 'first-configured', version: '1.0.0' });
  server.registerPrompt('shared', { description: 'from zx' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'zx' } }],
  }));
  return server;
});

describe('a never-listed upstream merged on the read path', () => {
  let unmount: () => Promise<void>;
  beforeAll(async () => {
    unmount = await mountInIsolate('zx.example', upstream, { id: 'zx', prefix: '' });
    // zx first, ax after: ax is listed already, zx never was.
    const list = JSON.stringify([
      { id: 'zx', url: 'https://zx.example/mcp', prefix: '' },
      { id: 'ax', url: 'https://ax.example/mcp', prefix: '', timeout: 1000 },
    ]);
    await env.PROMPTS.put(UPSTREAMS_KEY, list);
    forgetUpstreamConfig(env);
    const ax = validateUpstreams(env, list)[1]!;
    await catalogWriter(env).upstreamsReported([reported(ax, '.', { prompts: [{ name: 'shared' }] })]);
  });
  afterAll(() => unmount());

  it('serves a shared name from the first configured upstream, as the writer will', async () => {
    const origin = async () => {
      const q = scope(undefined);
      const page = JSON.parse((await listing(q, V, undefined)).json) as {
        prompts: { name: string; _meta?: Record<string, { upstream?: string }> }[];
      };
      await Promise.all(q.pending);
      const entry = page.prompts.find((p) => p.name === 'shared');
      return Object.values(entry?._meta ?? {})[0]?.upstream;
    };
    // The first page lists zx now and serves the merge, ahead of the writer.
    expect(await origin()).toBe('zx');
    // Then the writer's snapshot: the same owner.
    expect(await origin()).toBe('zx');
  });
});
