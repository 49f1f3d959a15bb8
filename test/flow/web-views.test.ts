/**
 * The web catalog under real access control (OAuth JWTs from a local issuer key, as in
 * views.test.ts): a viewer never sees on a page what it could not get over MCP (the index, the
 * prompt page, its preview and completions), a viewer without a credential is asked for a key and
 * sees nothing, and the viewer's name never reaches a page shared through the cache.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptRecord } from '../../src/catalog/types.js';
import { app } from '../../src/routes/app.js';
import { jwks, newSigner, sign, type Signer } from '../helpers/auth-tokens.js';
import { publish } from '../helpers/worker.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { forgetUpstreamConfig, UPSTREAMS_KEY } from '../../src/catalog/upstreams/config.js';
import { forgetHealth } from '../../src/routes/web-health.js';

const ISSUER = 'https://idp.web.test';
const text = (name: string, groups?: string[]): PromptRecord => ({
  name,
  description: `The ${name} prompt`,
  ...(groups && { groups }),
  arguments: [{ name: 'x', values: ['one', 'two'] }],
  messages: [{ role: 'user', content: { type: 'text', text: `${name} says {{x}}` } }],
});

interface Who {
  sub: string;
  name: string;
  groups: string[];
}
const alice: Who = { sub: 'alice', name: 'Alice Liddell', groups: ['eng'] };
const carol: Who = { sub: 'carol', name: 'Carol Danvers', groups: ['eng', 'unrelated'] };
const bob: Who = { sub: 'bob', name: 'Bob Dylan', groups: ['ops'] };

let signer: Signer;
/** Usage counting off: a counted failure arms a flush timer that waitOnExecutionContext would wait out. */
const authEnv = () =>
  ({
    ...env,
    AUTH: 'oauth',
    OAUTH_ISSUERS: JSON.stringify([{ issuer: ISSUER, jwks: jwks(signer) }]),
    USAGE: 'off',
  }) as unknown as Env;

async function page(path: string, who?: Who, accept = 'text/html') {
  const headers: Record<string, string> = { accept };
  if (who) {
    const claims = { iss: ISSUER, aud: 'https://gateway.test/mcp', scope: 'prompts:read', ...who };
    headers.authorization = `Bearer ${await sign(signer, claims)}`;
  }
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`https://gateway.test${path}`, { headers }), authEnv(), ctx);
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body };
}
const names = (html: string) => [...html.matchAll(/<li class="prompt" data-name="([^"]+)"/g)].map((m) => m[1]);

beforeAll(async () => {
  signer = await newSigner('web-views');
  await publish([text('everyone'), text('eng_only', ['eng']), text('ops_only', ['ops'])]);
});

describe('what a viewer sees', () => {
  it('the index lists exactly the prompts of its view', async () => {
    expect(names((await page('/', alice)).body)).toEqual(['eng_only', 'everyone']);
    expect(names((await page('/', bob)).body)).toEqual(['everyone', 'ops_only']);
    // Filtered (uncached) pages follow the view too.
    expect(names((await page('/?q=only', bob)).body)).toEqual(['everyone', 'ops_only']);
    expect((await page('/?q=only', bob)).body).not.toContain('eng_only');
  });

  it("a grouped prompt's page, preview and completions exist for its group only, like an unknown name elsewhere", async () => {
    const inside = await page('/p/eng_only', alice);
    expect(inside.status).toBe(200);
    expect(inside.body).toContain('<tr data-argument="x">');
    expect((await page('/p/eng_only/preview?x=one', alice)).body).toContain(
      '<pre class="text">eng_only says one</pre>',
    );
    expect(JSON.parse((await page('/p/eng_only/complete?argument=x&value=o', alice)).body)).toEqual({
      values: ['one', 'two'],
    });

    const hidden = await page('/p/eng_only', bob);
    const unknown = await page('/p/eng_onlx', bob);
    expect(hidden.status).toBe(404);
    expect(hidden.body.replaceAll('eng_only', 'eng_onlx')).toBe(unknown.body);
    // One view's 404 is kept by no cache, as every error answer (docs/caching.md).
    for (const r of [hidden, unknown]) expect(r.headers.get('cache-control')).toBe('no-store');
    const hiddenPreview = await page('/p/eng_only/preview?x=one', bob);
    expect(hiddenPreview.body).not.toContain('says one');
    expect(hiddenPreview.body.replaceAll('eng_only', 'eng_onlx')).toBe(
      (await page('/p/eng_onlx/preview?x=one', bob)).body,
    );
    expect(JSON.parse((await page('/p/eng_only/complete?argument=x&value=o', bob)).body)).toEqual({ values: [] });
    expect((await page('/p/eng_only?x=one&render=1', bob)).status).toBe(404);
  });

  it('without a credential: the key form, no prompts, and nothing to preview or complete', async () => {
    const index = await page('/');
    expect(index.status).toBe(200);
    expect(index.body).toContain('<form id="key-form"');
    expect(index.body).toContain('<input type="password" id="api-key"');
    expect(names(index.body)).toEqual([]);
    const anonymous404 = await page('/p/everyone');
    expect(anonymous404.status).toBe(404);
    expect(anonymous404.headers.get('cache-control')).toBe('no-store');
    // Each 401 carries the challenge every other 401 of the gateway gives (RFC 9110 §15.5.2).
    const challenge = (await page('/prompts', undefined, 'application/json')).headers.get('www-authenticate');
    expect(challenge).toMatch(/^Bearer .*resource_metadata=/);
    const refusedPreview = await page('/p/everyone/preview?x=one');
    expect(refusedPreview.status).toBe(401);
    expect(refusedPreview.headers.get('www-authenticate')).toBe(challenge);
    expect(refusedPreview.headers.get('cache-control')).toBe('no-store');
    const refusedCompletion = await page('/p/everyone/complete?argument=x&value=o');
    expect(refusedCompletion.status).toBe(401);
    expect(refusedCompletion.headers.get('www-authenticate')).toBe(challenge);
    const completion = await page('/p/everyone/complete?argument=x&value=o', alice);
    for (const h of ['cache-control', 'vary'])
      expect(refusedCompletion.headers.get(h), h).toBe(completion.headers.get(h));
    // With one, no key form.
    expect((await page('/', alice)).body).not.toContain('id="key-form"');
    // The JSON stub is not guarded, as before.
    expect(JSON.parse((await page('/', undefined, 'application/json')).body)).toMatchObject({ name: 'promptgate' });
  });

  it("a viewer's name with replacement patterns ($`, $&, $') is only text on the page", async () => {
    const odd: Who = { sub: 'odd', name: "x $` $& $' y", groups: ['eng'] };
    const { body } = await page('/', odd);
    expect(body).toContain(`<p id="viewer" class="viewer">Signed in as x $\` $&amp; $&#39; y</p>`);
    expect(body.split('<!doctype').length).toBe(2);
    expect(body).not.toContain('<!--pg:viewer-->');
  });

  it("names the viewer, and never in another viewer's page of the same view; private to the credential", async () => {
    const a = await page('/', alice);
    const c = await page('/', carol);
    expect(names(c.body)).toEqual(names(a.body));
    expect(a.body).toContain('<p id="viewer" class="viewer">Signed in as Alice Liddell</p>');
    expect(c.body).toContain('<p id="viewer" class="viewer">Signed in as Carol Danvers</p>');
    expect(c.body).not.toContain('Alice');
    const pa = await page('/p/everyone', alice);
    const pc = await page('/p/everyone', carol);
    expect(pc.body).not.toContain('Alice');
    expect(pa.body.replace('Alice Liddell', 'Carol Danvers')).toBe(pc.body);
    for (const r of [a, c, pa]) {
      expect(r.headers.get('cache-control')).toBe('private, no-cache');
      expect(r.headers.get('vary')).toBe('Accept, Authorization, Cf-Access-Jwt-Assertion, Cookie');
    }
  });
});

describe('upstream health on the index', () => {
  const listing = (id: string) => ({ id, prefix: id, prompts: [{ name: 'p', origin: { upstream: id, name: 'p' } }] });
  beforeAll(async () => {
    await env.PROMPTS.put(
      UPSTREAMS_KEY,
      JSON.stringify([
        { id: 'pubx', url: 'https://pubx.example/mcp' },
        { id: 'engx', url: 'https://engx.example/mcp', groups: ['eng'] },
      ]),
    );
    forgetUpstreamConfig(env);
    await catalogWriter(env).upstreamsReported([listing('pubx'), listing('engx')]);
    forgetHealth();
  });
  afterAll(async () => {
    await env.PROMPTS.delete(UPSTREAMS_KEY);
    forgetUpstreamConfig(env);
    await catalogWriter(env).reconcileUpstreams();
    forgetHealth();
  });

  it('shows an upstream guarded by groups only to its members: not even its prompt count', async () => {
    const rows = (html: string) => [...html.matchAll(/<tr data-upstream="([^"]+)"/g)].map((m) => m[1]).sort();
    expect(rows((await page('/', bob)).body)).toEqual(['pubx']);
    expect(rows((await page('/', alice)).body)).toEqual(['engx', 'pubx']);
    // A viewer asked for a key is shown none: upstream health is for readers (/status: 'restricted').
    const asked = (await page('/')).body;
    expect(rows(asked)).toEqual([]);
    expect(asked).toContain('<tr data-state="restricted">');
  });

  it("is guarded by the writer's groups when this isolate's copy of the configuration is older", async () => {
    const rows = (html: string) => [...html.matchAll(/<tr data-upstream="([^"]+)"/g)].map((m) => m[1]).sort();
    // This isolate reads a configuration without engx's groups; the writer still guards it by ['eng'].
    const unguarded = [
      { id: 'pubx', url: 'https://pubx.example/mcp' },
      { id: 'engx', url: 'https://engx.example/mcp' },
    ];
    const guarded = [unguarded[0], { ...unguarded[1], groups: ['eng'] }];
    // The writer guards by the list the admin API gave it (upstream-listings.ts), kept in its own storage.
    await catalogWriter(env).setUpstreams(JSON.stringify(guarded));
    await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify(unguarded));
    forgetUpstreamConfig(env);
    forgetHealth();
    try {
      expect((await catalogWriter(env).upstreams()).find((u) => u.id === 'engx')?.groups).toEqual(['eng']);
      expect(rows((await page('/', bob)).body)).toEqual(['pubx']);
    } finally {
      await env.PROMPTS.put(UPSTREAMS_KEY, JSON.stringify(guarded));
      await catalogWriter(env).setUpstreams(null);
      forgetUpstreamConfig(env);
      forgetHealth();
    }
  });
});
