/**
 * prompts/list, prompts/get, completion/complete, logging and initialize,
 * checked against the SDK's own result schemas and per negotiated revision.
 */
import {
  CompleteResultSchema,
  GetPromptResultSchema,
  InitializeResultSchema,
  ListPromptsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { openSession, post, publish, request, type Session } from '../helpers/worker.js';

let s: Session;
beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  s = await openSession('2025-11-25');
});

async function listAll(session: Session): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | undefined;
  do {
    const r = await session.call('prompts/list', cursor ? { cursor } : undefined);
    ListPromptsResultSchema.parse(r.body.result); // spec-valid; the raw body keeps fields the SDK schema strips
    all.push(...r.body.result.prompts);
    cursor = r.body.result.nextCursor;
  } while (cursor);
  return all;
}

describe('initialize', () => {
  it('echoes each supported version and counter-offers the latest otherwise', async () => {
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const res = await post(
        request('initialize', { protocolVersion: v, capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
      );
      const body = (await res.json()) as any;
      expect(body.result.protocolVersion).toBe(v);
    }
    for (const v of ['2024-11-05', '2099-01-01']) {
      const res = await post(request('initialize', { protocolVersion: v, capabilities: {} }));
      expect(((await res.json()) as any).result.protocolVersion).toBe('2025-11-25');
    }
  });
  it('declares prompts with listChanged, completions and server info', async () => {
    const res = await post(
      request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    const result = InitializeResultSchema.parse(((await res.json()) as any).result);
    expect(result.capabilities.prompts).toEqual({ listChanged: true });
    expect(result.capabilities.completions).toEqual({});
    expect(result.serverInfo).toMatchObject({ name: 'promptgate', title: 'promptgate' });
    expect(result.serverInfo.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(result.instructions).toContain('prompts/list');
  });
  it('leaves title out of serverInfo for 2025-03-26', async () => {
    const res = await post(request('initialize', { protocolVersion: '2025-03-26', capabilities: {} }));
    const body = (await res.json()) as any;
    expect(body.result.serverInfo.title).toBeUndefined();
    expect(body.result.serverInfo.description).toBeUndefined();
  });
  it('-32602 when protocolVersion is missing', async () => {
    const res = await post(request('initialize', { capabilities: {} }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).error.code).toBe(-32602);
  });
});

describe('prompts/list', () => {
  it('walks every page in name order with opaque cursors', async () => {
    const all = await listAll(s);
    expect(all.map((p) => p.name)).toEqual([...FIXTURE_PROMPTS.map((p) => p.name)].sort());
    const first = await s.call('prompts/list');
    expect(first.body.result.prompts).toHaveLength(3);
    expect(first.body.result.nextCursor).not.toMatch(/^\d+$/);
  });
  it('carries titles and icons at 2025-11-25 but never template messages or completion values', async () => {
    const greet = (await listAll(s)).find((p) => p.name === 'greet');
    expect(greet.title).toBe('Greeting');
    expect(greet.icons).toEqual([{ src: 'https://example.com/icon.png', mimeType: 'image/png' }]);
    expect(greet.arguments[0]).toEqual({ name: 'who', title: 'Who', description: 'Person to greet', required: true });
    expect(greet.messages).toBeUndefined();
  });
  it('drops icons at 2025-06-18 and titles at 2025-03-26', async () => {
    const mid = (await listAll(await openSession('2025-06-18'))).find((p) => p.name === 'greet');
    expect(mid.title).toBe('Greeting');
    expect(mid.icons).toBeUndefined();
    const old = (await listAll(await openSession('2025-03-26'))).find((p) => p.name === 'greet');
    expect(old.title).toBeUndefined();
    expect(old.arguments[0].title).toBeUndefined();
  });
  it('-32602 for garbage, tampered and stale cursors', async () => {
    const first = await s.call('prompts/list');
    const cursor: string = first.body.result.nextCursor;
    const tampered = cursor.slice(0, -3) + (cursor.endsWith('AAA') ? 'BBB' : 'AAA');
    for (const bad of ['garbage', tampered, 42, '']) {
      const r = await s.call('prompts/list', { cursor: bad });
      expect(r.status).toBe(200);
      expect(r.body.error.code, String(bad)).toBe(-32602);
    }
    try {
      // A publish that leaves the list as it was (one description changed) keeps the cursor good.
      const names = (r: { body: any }) => r.body.result.prompts.map((p: { name: string }) => p.name);
      const second = names(await s.call('prompts/list', { cursor }));
      const [head, ...tail] = FIXTURE_PROMPTS;
      await publish([{ ...head!, description: `${head!.description ?? ''} (reworded)` }, ...tail]);
      const kept = await s.call('prompts/list', { cursor });
      expect(kept.body.error, JSON.stringify(kept.body)).toBeUndefined();
      expect(names(kept)).toEqual(second);
      // One that adds a prompt refuses it: its offset could skip or repeat one.
      const extra = { name: 'aaa-added', messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] };
      await publish([...FIXTURE_PROMPTS, extra] as typeof FIXTURE_PROMPTS);
      const stale = await s.call('prompts/list', { cursor });
      expect(stale.body.error.code).toBe(-32602);
      expect(stale.body.error.message).toMatch(/list changed/);
    } finally {
      await publish(FIXTURE_PROMPTS);
    }
  });
});

describe('prompts/get', () => {
  it('renders placeholders plainly, without evaluating or re-scanning', async () => {
    const r = await s.call('prompts/get', { name: 'greet', arguments: { who: '{{tone}} ${process}', tone: 'warm' } });
    const result = GetPromptResultSchema.parse(r.body.result);
    expect(result.description).toBe('Says hello');
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Say hello to {{tone}} ${process} in a warm tone.' } },
    ]);
  });
  it('renders into embedded resources and resource links', async () => {
    const e = await s.call('prompts/get', { name: 'embedded', arguments: { service: 'billing' } });
    expect(e.body.result.messages[0].content).toEqual({
      type: 'resource',
      resource: { uri: 'log://billing', mimeType: 'text/plain', text: 'error in billing' },
    });
    const l = await s.call('prompts/get', { name: 'linky', arguments: { path: 'src/a.ts' } });
    expect(l.body.result.messages[0].content).toMatchObject({
      type: 'resource_link',
      uri: 'file:///src/a.ts',
      name: 'source file',
    });
  });
  it('degrades resource_link to a text link for 2025-03-26', async () => {
    const old = await openSession('2025-03-26');
    const l = await old.call('prompts/get', { name: 'linky', arguments: { path: 'src/a.ts' } });
    expect(l.body.result.messages[0].content).toEqual({ type: 'text', text: 'Source: file:///src/a.ts' });
  });
  it('serves images untouched', async () => {
    const r = await s.call('prompts/get', { name: 'picture' });
    expect(r.body.result.messages[0].content).toMatchObject({ type: 'image', mimeType: 'image/png' });
  });
  it('ignores undeclared arguments and fills optional ones with empty text', async () => {
    const r = await s.call('prompts/get', { name: 'greet', arguments: { who: 'ann', extra: 'x' } });
    expect(r.body.result.messages[0].content.text).toBe('Say hello to ann in a  tone.');
  });
  it('-32602 naming the problem: unknown prompt, missing argument, non-string argument', async () => {
    const unknown = await s.call('prompts/get', { name: 'nope' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.error).toMatchObject({ code: -32602, message: 'Unknown prompt "nope"' });
    const missing = await s.call('prompts/get', { name: 'greet', arguments: {} });
    expect(missing.body.error.code).toBe(-32602);
    expect(missing.body.error.message).toContain('"who"');
    const typed = await s.call('prompts/get', { name: 'greet', arguments: { who: 5 } });
    expect(typed.body.error.code).toBe(-32602);
    const noName = await s.call('prompts/get', {});
    expect(noName.body.error.code).toBe(-32602);
  });
});

describe('completion/complete', () => {
  const complete = (name: string, arg: string, value: string) =>
    s.call('completion/complete', { ref: { type: 'ref/prompt', name }, argument: { name: arg, value } });
  it('prefix matches first, then fuzzy', async () => {
    const r = await complete('greet', 'who', 'al');
    // "carol" holds a, l in order: a fuzzy match, ranked after the prefix matches.
    expect(CompleteResultSchema.parse(r.body.result).completion).toEqual({
      values: ['alice', 'alfred', 'carol'],
      total: 3,
      hasMore: false,
    });
    const fuzzy = await complete('greet', 'who', 'ice');
    expect(fuzzy.body.result.completion.values).toEqual(['alice']);
    const ranked = await complete('greet', 'who', 'ar');
    expect(ranked.body.result.completion.values).toEqual(['carol', 'alfred']);
    const infix = await complete('greet', 'who', 'o');
    expect(infix.body.result.completion.values).toEqual(['bob', 'carol']);
  });
  it('caps values at 100 with total and hasMore', async () => {
    const r = await complete('many', 'n', 'v');
    expect(r.body.result.completion.values).toHaveLength(100);
    expect(r.body.result.completion).toMatchObject({ total: 150, hasMore: true });
  });
  it('empty for an argument without values; -32602 for unknown prompts and bad refs', async () => {
    expect((await complete('greet', 'nothing', 'x')).body.result.completion).toEqual({
      values: [],
      total: 0,
      hasMore: false,
    });
    expect((await complete('nope', 'who', 'a')).body.error.code).toBe(-32602);
    const res = await s.call('completion/complete', {
      ref: { type: 'ref/resource', uri: 'x://y' },
      argument: { name: 'a', value: '' },
    });
    expect(res.body.error.code).toBe(-32602);
    // A ref type is client input: quoted back cut short, as a method name is, never whole.
    const huge = await s.call('completion/complete', {
      ref: { type: 'x'.repeat(60_000) },
      argument: { name: 'a', value: '' },
    });
    expect(huge.body.error.code).toBe(-32602);
    expect(huge.body.error.message).toMatch(/^Unsupported completion ref type "x{99}…; /);
    expect(huge.body.error.message.length).toBeLessThan(300);
  });
});

describe('utilities', () => {
  it('ping answers an empty result', async () => {
    expect((await s.call('ping')).body.result).toEqual({});
  });
  it('logging/setLevel accepts RFC 5424 levels and rejects others', async () => {
    expect((await s.call('logging/setLevel', { level: 'warning' })).body.result).toEqual({});
    expect((await s.call('logging/setLevel', { level: 'loud' })).body.error.code).toBe(-32602);
  });
  it('-32601 for unknown methods, including prototype names', async () => {
    // resources/read is served with SKILLS on (the default); with it off it is unknown too (test/flow/skills.test.ts).
    for (const m of ['tools/list', 'constructor', '__proto__', 'resources/subscribe']) {
      const r = await s.call(m);
      expect(r.status).toBe(200);
      expect(r.body.error.code, m).toBe(-32601);
    }
  });
});
