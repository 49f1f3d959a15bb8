/**
 * The web catalog (docs/web-catalog.md) through the real app, KV, Durable Objects and the Cache
 * API: HTML for browsers and the JSON stub for everyone else, the CSP on every page, every
 * prompt with its slash command, the server-side filters, a prompt's arguments, a preview that is
 * exactly prompts/get's messages, completions, edge caching by generation, and the page weight.
 * Per-view visibility is in web-views.test.ts.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PromptRecord } from '../../src/catalog/types.js';
import { app } from '../../src/routes/app.js';
import { CSP } from '../../src/routes/web.js';
import { Messages } from '../../src/web/preview.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { modernPost } from '../helpers/protocol.js';
import { countingEnv, publish } from '../helpers/worker.js';

const BASE = 'https://gateway.test';
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Like prompts/ui_review.md: an image, then text with two optional arguments, and tags. */
const UI_REVIEW: PromptRecord = {
  name: 'ui_review',
  title: 'UI design review',
  description: 'Get a structured design review of a screen mockup',
  tags: ['design', 'ui', 'accessibility', 'review'],
  arguments: [
    { name: 'focus', title: 'Focus', description: 'The aspect to concentrate on', values: ['accessibility', 'layout'] },
    { name: 'context', description: 'What the screen is for' },
  ],
  messages: [
    { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Review focus: {{focus}}. Context: {{context}}.' } },
  ],
};
const PROMPTS = [...FIXTURE_PROMPTS, UI_REVIEW];

const get = (path: string, headers: Record<string, string> = HTML) => SELF.fetch(BASE + path, { headers });

/**
 * The colo's pointer lives as long as the catalog refresh interval (0 in the suites): long enough here.
 * Usage off: a counted request arms a flush timer that waitOnExecutionContext would wait out.
 */
const slow = (e: Env) => ({ ...e, CATALOG_REFRESH_MS: '60000', USAGE: 'off' }) as unknown as Env;

/** Through app.fetch with an env of the test's choosing (a new KV object is a cold isolate). */
async function fetchWith(e: Env, path: string, headers: Record<string, string> = HTML) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(BASE + path, { headers }), e, ctx);
  const body = await res.text();
  await waitOnExecutionContext(ctx);
  return { res, body };
}

/** The index's prompts in order: name, whether hidden, and the slash command shown with it. */
function listed(html: string): { name: string; hidden: boolean; slash: string | undefined }[] {
  const out = [];
  for (const m of html.matchAll(
    /<li class="prompt" data-name="([^"]+)" data-source="[^"]*" data-tags="[^"]*"( hidden="")?>/g,
  )) {
    const rest = html.slice(m.index + m[0].length);
    out.push({ name: m[1]!, hidden: m[2] !== undefined, slash: /<code class="slash">([^<]*)<\/code>/.exec(rest)?.[1] });
  }
  return out;
}
const shown = (html: string) =>
  listed(html)
    .filter((p) => !p.hidden)
    .map((p) => p.name);

/** A modern-era call over /mcp, as an MCP client makes it. */
async function rpcResult(method: string, params: Record<string, unknown>) {
  const { init } = modernPost(method, params);
  const ref = (params.ref as { name?: string } | undefined)?.name;
  if (ref) (init.headers as Record<string, string>)['mcp-name'] = ref;
  const body = (await (await SELF.fetch(`${BASE}/mcp`, init)).json()) as any;
  if (!body.result) throw new Error(JSON.stringify(body));
  return body.result;
}

let generation: number;
beforeAll(async () => {
  generation = await publish(PROMPTS);
});

describe('GET /', () => {
  it('is HTML for browsers and the JSON stub for everyone else', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toMatch(/^Accept,/);
    expect(await page.text()).toMatch(/^<!doctype html><html lang="en">/);
    for (const headers of [{ accept: 'application/json' }, {}, { accept: '*/*' }] as Record<string, string>[]) {
      const r = await get('/', headers);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      // One URL, two answers by Accept: a cache must not hand the stub to a browser, nor keep it unrevalidated.
      expect(r.headers.get('vary')).toBe('Accept');
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(await r.json()).toEqual({ name: 'promptgate', mcp: `${BASE}/mcp` });
    }
  });

  it('every HTML answer carries the strict CSP, and no page has inline script or style', async () => {
    expect(CSP).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    for (const path of ['/', '/?q=hello', '/p/greet', '/p/greet?who=bob&render=1', '/p/picture/preview', '/p/nope']) {
      const r = await get(path);
      expect(r.headers.get('content-security-policy'), path).toBe(CSP);
      const body = await r.text();
      expect(body, path).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    }
  });

  it('lists every prompt prompts/list has, each with its slash command', async () => {
    const html = await (await get('/')).text();
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rpcResult('prompts/list', cursor ? { cursor } : {});
      names.push(...page.prompts.map((p: { name: string }) => p.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names.length).toBe(PROMPTS.length);
    expect(listed(html).map((p) => p.name)).toEqual(names);
    for (const p of listed(html)) expect(p.slash).toBe(`/${p.name}`);
    expect(html).toContain('<p id="count" aria-live="polite">8 prompts</p>');
    expect(html).toContain(
      'data-name="ui_review" data-source="local" data-tags="[&quot;design&quot;,&quot;ui&quot;,&quot;accessibility&quot;,&quot;review&quot;]"',
    );
    expect(html).toContain('<svg class="spark"');
  });

  it('filters on the server without JavaScript: search words, tag and source', async () => {
    const page = async (q: string) => (await get(`/?${q}`)).text();
    expect(shown(await page('q=hello'))).toEqual(['greet']);
    expect(shown(await page('q=SCREEN+review'))).toEqual(['ui_review']);
    expect(shown(await page('q=accessibility'))).toEqual(['ui_review']);
    expect(shown(await page('tag=design'))).toEqual(['ui_review']);
    expect(shown(await page('source=local'))).toHaveLength(PROMPTS.length);
    expect(shown(await page('source=gh'))).toEqual([]);
    const filtered = await page('q=link&tag=');
    expect(shown(filtered)).toEqual(['linky']);
    expect(filtered).toContain('1 of 8 prompts');
    expect(filtered).toContain('<input type="search" id="search" name="q" value="link"');
    expect(await page('tag=design')).toContain('<option value="design" selected="">design</option>');
    // A value no prompt has (an old link): the select shows the filter applied, so the script keeps it.
    const none = await page('tag=gone-tag&source=gone-source');
    expect(shown(none)).toEqual([]);
    expect(none).toContain('<option value="gone-tag" selected="">gone-tag</option>');
    expect(none).toContain('<option value="gone-source" selected="">gone-source</option>');
  });

  it('names the real /mcp URL in every connect instruction', async () => {
    const html = await (await SELF.fetch('https://prompts.example.org/', { headers: HTML })).text();
    const url = 'https://prompts.example.org/mcp';
    const vscode = /<a id="install-vscode" class="button" href="([^"]+)"/.exec(html)![1]!;
    expect(JSON.parse(decodeURIComponent(vscode.replace('vscode:mcp/install?', '')))).toEqual({
      name: 'promptgate',
      type: 'http',
      url,
    });
    const cursor = new URL(
      /<a id="install-cursor" class="button" href="([^"]+)"/.exec(html)![1]!.replaceAll('&amp;', '&'),
    );
    expect(cursor.protocol + cursor.host + cursor.pathname).toBe('cursor:anysphere.cursor-deeplink/mcp/install');
    expect(cursor.searchParams.get('name')).toBe('promptgate');
    expect(JSON.parse(atob(cursor.searchParams.get('config')!))).toEqual({ url });
    expect(html).toContain(`<code id="cmd-claude-code">claude mcp add --transport http promptgate ${url}</code>`);
    expect(html).toMatch(new RegExp(`<pre id="config-claude-desktop">[^<]*${url.replaceAll('.', '\\.')}`));
    expect(html).toMatch(new RegExp(`<code id="cmd-inspector">[^<]*${url.replaceAll('.', '\\.')} --transport http`));
  });

  it('shows the catalog generation and the upstream states /status computes', async () => {
    const html = await (await get('/')).text();
    const status = await (await SELF.fetch(`${BASE}/status`)).json<{ generation: number; upstreams: unknown[] }>();
    expect(html).toContain(`<section id="health" data-generation="${status.generation}"`);
    expect(status.upstreams).toEqual([]);
    expect(html).toContain('No upstream servers are configured.');
  });
});

describe('a prompt page', () => {
  it('has the arguments table: required, description, allowed values (from completion/complete)', async () => {
    const html = await (await get('/p/greet')).text();
    const row = (arg: string) => new RegExp(`<tr data-argument="${arg}">(.*?)</tr>`, 's').exec(html)?.[1];
    expect(row('who')).toBe(
      '<th scope="row"><code>who</code><span class="sub">Who</span></th><td>yes</td><td>Person to greet</td>' +
        '<td>alice, bob, alfred, carol</td>',
    );
    expect(row('tone')).toContain('<td>no</td><td></td><td>formal, casual</td>');
    expect(html).toContain('<form id="args" method="get" action="/p/greet"');
    expect(html).toContain(
      '<input id="arg-who" name="arg:who" data-argument="who" list="values-who" value="" required=""',
    );
    expect(html).toContain('<datalist id="values-who"><option value="alice"></option>');
    expect(html).toContain('<button type="submit" id="render">');
    expect(html).toMatch(/<time id="changed" datetime="\d{4}-\d\d-\d\dT[^"]+Z">/);
    // Not an admin: no history.
    expect(html).not.toContain('id="history"');
  });

  it("renders the preview exactly as prompts/get's messages, on the server and as a fragment", async () => {
    for (const [name, args] of [
      ['ui_review', { focus: 'layout', context: 'a <b>dashboard</b>' }],
      ['greet', { who: 'bob', tone: 'casual' }],
      ['embedded', { service: 'api' }],
      ['linky', { path: 'src/a.ts' }],
    ] as const) {
      const result = await rpcResult('prompts/get', { name, arguments: args });
      const expected = String(Messages({ preview: { messages: result.messages } }));
      const query = new URLSearchParams(args).toString();
      const fragment = await (await get(`/p/${name}/preview?${query}`)).text();
      expect(fragment).toBe(expected);
      const page = await (await get(`/p/${name}?${query}&render=1`)).text();
      expect(page).toContain(`<div id="messages" aria-live="polite">${expected}</div>`);
    }
    const review = await (await get('/p/ui_review/preview?focus=layout&context=a+%3Cb%3Edashboard%3C%2Fb%3E')).text();
    expect(review).toContain(`<img class="image" src="data:image/png;base64,${PNG}" alt="Image (image/png)"/>`);
    expect(review).toContain('Review focus: layout. Context: a &lt;b&gt;dashboard&lt;/b&gt;.');
    expect(await (await get('/p/embedded/preview?service=api')).text()).toContain(
      '<div class="resource" data-uri="log://api">',
    );
    // prompts/get's own error, as it says it.
    expect(await (await get('/p/greet/preview')).text()).toContain('Missing required argument &quot;who&quot;');
  });

  it('offers the values completion/complete gives', async () => {
    for (const [arg, value] of [
      ['who', 'al'],
      ['tone', ''],
      ['who', 'zz'],
    ]) {
      const r = await get(`/p/greet/complete?argument=${arg}&value=${value}`, {});
      const expected = await rpcResult('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: arg, value },
      });
      expect(await r.json()).toEqual({ values: expected.completion.values });
    }
    expect(await (await get('/p/greet/complete?argument=who&value=al', {})).json()).toEqual({
      values: ['alice', 'alfred', 'carol'],
    });
    expect(await (await get('/p/nope/complete?argument=who&value=al', {})).json()).toEqual({ values: [] });
  });

  it('an unknown prompt is a 404 page', async () => {
    const r = await get('/p/nope');
    expect(r.status).toBe(404);
    expect(await r.text()).toContain('No prompt named <code>nope</code>');
  });

  it('shows the version history to admins only, and their page is never served to others', async () => {
    const admin = await (await get('/p/greet', { ...HTML, authorization: 'Bearer test-admin-token' })).text();
    expect(admin).toMatch(/<section id="history" aria-labelledby="history-h">.*<td>1<\/td>/s);
    expect(admin).toContain('<p id="viewer" class="viewer">Signed in as admin</p>');
    const anyone = await (await get('/p/greet')).text();
    expect(anyone).not.toContain('id="history"');
    expect(anyone).not.toContain('id="viewer"');
  });
});

describe('assets and caching', () => {
  it('serves the stylesheet and the script immutable under their content hash', async () => {
    const html = await (await get('/')).text();
    const css = /<link rel="stylesheet" href="(\/assets\/[a-z0-9]+\.css)"\/>/.exec(html)![1]!;
    const js = /<script src="(\/assets\/[a-z0-9]+\.js)" defer=""><\/script>/.exec(html)![1]!;
    for (const [path, type] of [
      [css, 'text/css; charset=utf-8'],
      [js, 'text/javascript; charset=utf-8'],
    ]) {
      const r = await get(path!, {});
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(type);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await r.text()).length).toBeGreaterThan(500);
    }
    const missing = await get('/assets/0.css', {});
    expect(missing.status).toBe(404);
    // Never kept by a cache in front: during a gradual deployment the other version may have it.
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });

  it('a cold isolate gets the page from the edge cache; a new generation makes a new page', async () => {
    // A generation no page was made for yet: the first request makes and stores it.
    generation = await publish(PROMPTS);
    const e = slow(env);
    const first = await fetchWith(e, '/');
    expect(first.res.status).toBe(200);
    const cold = countingEnv();
    const again = await fetchWith(slow(cold.env), '/');
    expect(again.body).toBe(first.body);
    expect(cold.reads.filter((r) => r.includes('catalog/'))).toEqual([]);
    // The same for a prompt page.
    const p1 = await fetchWith(e, '/p/greet');
    const coldP = countingEnv();
    expect((await fetchWith(slow(coldP.env), '/p/greet')).body).toBe(p1.body);
    expect(coldP.reads.filter((r) => r.includes('catalog/'))).toEqual([]);
    // An admin's page too, in this catalog without groups (the admin's view is everyone's).
    const asAdmin = { ...HTML, authorization: 'Bearer test-admin-token' };
    const a1 = await fetchWith(e, '/p/greet', asAdmin);
    const coldA = countingEnv();
    expect((await fetchWith(slow(coldA.env), '/p/greet', asAdmin)).body).toBe(a1.body);
    expect(coldA.reads.filter((r) => r.includes('catalog/'))).toEqual([]);
    // A publish: the page names the new generation and the new prompt.
    const next = await publish([
      ...PROMPTS,
      { name: 'brand_new', messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] },
    ]);
    expect(next).toBeGreaterThan(generation);
    const fresh = await (await get('/')).text();
    expect(fresh).toContain(`data-generation="${next}"`);
    expect(shown(fresh)).toContain('brand_new');
    await publish(PROMPTS);
  });

  it('the first load (HTML + CSS + JS, gzip) is at most 60 KB', async () => {
    const gz = async (r: Response) => {
      const s = r.body!.pipeThrough(new CompressionStream('gzip'));
      return (await new Response(s).arrayBuffer()).byteLength;
    };
    const index = await get('/');
    const html = await index.clone().text();
    const css = /href="(\/assets\/[a-z0-9]+\.css)"/.exec(html)![1]!;
    const js = /src="(\/assets\/[a-z0-9]+\.js)"/.exec(html)![1]!;
    const sizes = [await gz(index), await gz(await get(css, {})), await gz(await get(js, {}))];
    const total = sizes.reduce((a, b) => a + b, 0);
    console.log(`first load, gzip: html ${sizes[0]} B, css ${sizes[1]} B, js ${sizes[2]} B, total ${total} B`);
    expect(total).toBeLessThanOrEqual(60 * 1024);
  });
});

describe('a prompt whose arguments are named like Object.prototype members', () => {
  it('has a page, empty fields and the values given (not the inherited ones)', async () => {
    const odd: PromptRecord = {
      name: 'proto_args',
      arguments: [{ name: 'constructor' }, { name: 'toString' }, { name: '__proto__' }],
      messages: [{ role: 'user', content: { type: 'text', text: '{{constructor}} {{toString}} {{__proto__}}' } }],
    };
    await publish([...PROMPTS, odd]);
    const page = await get('/p/proto_args');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain('function Object');
    expect(html).not.toContain('[object Object]');
    const filled = await (await get('/p/proto_args?render=1&constructor=given&__proto__=also')).text();
    expect(filled).toContain('value="given"');
    expect(filled).toContain('value="also"');
  });
});

describe("a prompt whose arguments are named like the page's own parameters", () => {
  const named = (name: string, arg: string): PromptRecord => ({
    name,
    arguments: [{ name: arg, required: true }],
    messages: [{ role: 'user', content: { type: 'text', text: `{{${arg}}}` } }],
  });
  beforeAll(() =>
    publish([
      ...PROMPTS,
      named('named_render', 'render'),
      named('named_token', 'access_token'),
      named('named_value', 'value'),
    ]),
  );
  /** The query the page's form and script send: each argument as `arg:<name>`. */
  const argQuery = (args: Record<string, string>) =>
    new URLSearchParams(Object.entries(args).map(([k, v]) => [`arg:${k}`, v])).toString();

  it('`render` previews and renders on the page, given as arg:render', async () => {
    const fragment = await get(`/p/named_render/preview?${argQuery({ render: 'hi' })}`);
    expect(fragment.status).toBe(200);
    expect(await fragment.text()).toContain('<pre class="text">hi</pre>');
    const page = await (await get(`/p/named_render?render=1&${argQuery({ render: 'hi' })}`)).text();
    expect(page).toContain('<pre class="text">hi</pre>');
    expect(page).toContain('name="arg:render" data-argument="render" list="values-render" value="hi"');
  });

  it('`access_token` gets a 200 fragment, not the 400 for a credential in the URL', async () => {
    const fragment = await get(`/p/named_token/preview?${argQuery({ access_token: 'not-a-secret' })}`);
    expect(fragment.status).toBe(200);
    expect(await fragment.text()).toContain('<pre class="text">not-a-secret</pre>');
    // The page's field names it so; spelled plainly, it is still refused like any credential in a URL.
    expect(await (await get('/p/named_token')).text()).toContain('name="arg:access_token"');
    expect((await get('/p/named_token/preview?access_token=x')).status).toBe(400);
  });

  it('a plainly named argument still works in a hand-written link, and the prefix wins over it', async () => {
    const fragment = await (await get('/p/greet/preview?who=bob&arg%3Awho=ada')).text();
    expect(fragment).toContain('ada');
    expect(fragment).not.toContain('bob');
  });
});

describe('trailing slashes', () => {
  it('a GET or HEAD no route matches, ending in /, is sent once to the path without it (query kept)', async () => {
    for (const [method, path, to] of [
      ['GET', '/prompts/?cursor=x', '/prompts?cursor=x'],
      ['GET', '/p/ui_review/', '/p/ui_review'],
      ['HEAD', '/status//', '/status'],
      ['GET', '//evil.example/', '//evil.example'],
    ] as const) {
      const res = await SELF.fetch(`${BASE}${path}`, { method, headers: HTML, redirect: 'manual' });
      expect(res.status, path).toBe(308);
      expect(res.headers.get('location'), path).toBe(`${BASE}${to}`);
    }
    const followed = await SELF.fetch(`${BASE}/p/ui_review/`, { headers: HTML });
    expect(followed.status).toBe(200);
    expect(await followed.text()).toContain('UI design review');
  });
  it('other methods, and paths without the slash, get the 404 body', async () => {
    for (const [method, path] of [
      ['POST', '/prompts/'],
      ['GET', '/nope'],
    ] as const) {
      const res = await SELF.fetch(`${BASE}${path}`, { method, redirect: 'manual' });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(((await res.json()) as any).error.code).toBe('not_found');
    }
  });
});
