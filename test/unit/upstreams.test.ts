import { describe, expect, it } from 'vitest';
import {
  MAX_UPSTREAMS,
  parseUpstreams,
  upstreamsInForce,
  type ParseOptions,
} from '../../src/catalog/upstreams/parse.js';
import { MAX_ORIGINAL_NAME, nameAllowed } from '../../src/catalog/upstreams/schema.js';
import { isPrivateHost } from '../../src/catalog/upstreams/ssrf.js';
import { MAX_NAME, namespaced, prefixOf } from '../../src/catalog/upstreams/names.js';
import { sanitizeListing } from '../../src/catalog/upstreams/sanitize.js';
import { publishedName, servedOriginal } from '../../src/catalog/upstreams/access.js';
import { listingKey } from '../../src/catalog/upstreams/report.js';
import { restated } from '../../src/catalog/upstreams/restate.js';
import { ownSecretNames } from '../../src/lib/own-secrets.js';
import { configOf } from '../../src/lib/config.js';

const opts = {
  separator: '.',
  secrets: { GH_TOKEN: 's3cret' },
  ownSecrets: ownSecretNames({}),
  allowHttpLoopback: false,
};

describe('parseUpstreams', () => {
  it('fills defaults and resolves secrets in headers', () => {
    const [u] = parseUpstreams(
      JSON.stringify([
        {
          id: 'gh',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer ${GH_TOKEN}' },
          allow: ['review*'],
        },
      ]),
      opts,
    );
    expect(u).toMatchObject({
      id: 'gh',
      prefix: 'gh',
      timeoutMs: 5000,
      enabled: true,
      headers: { authorization: 'Bearer s3cret' },
      allow: ['review*'],
      deny: [],
    });
    expect(nameAllowed(u!, 'review_pr')).toBe(true);
    expect(nameAllowed(u!, 'deploy')).toBe(false);
  });
  it('reports every problem with its field path', () => {
    const bad = [
      { id: 'Bad Id', url: 'https://x.example' },
      { id: 'a', url: 'http://mcp.example.com' },
      { id: 'b', url: 'https://10.0.0.5/mcp' },
      { id: 'c', url: 'https://x.example', prefix: 'has.dot' },
      { id: 'd', url: 'https://x.example', headers: { authorization: '${MISSING}' }, timeout: 5 },
      { id: 'd', url: 'https://169.254.169.254/latest' },
    ];
    expect(() => parseUpstreams(JSON.stringify(bad), opts)).toThrowError(
      /UPSTREAMS\[0\]\.id: required[\s\S]*UPSTREAMS\[1\]\.url: must be https[\s\S]*UPSTREAMS\[2\]\.url: private[\s\S]*UPSTREAMS\[3\]\.prefix[\s\S]*UPSTREAMS\[4\]\.timeout[\s\S]*UPSTREAMS\[4\]\.headers\.authorization: secret MISSING is not set[\s\S]*UPSTREAMS\[5\]\.id: duplicate[\s\S]*UPSTREAMS\[5\]\.url: private/,
    );
    expect(() => parseUpstreams('{not json', opts)).toThrowError(/not valid JSON/);
  });
  it('refuses the id "local": the web catalog marks local prompts with it', () => {
    const entry = (id: string, prefix?: string) => JSON.stringify([{ id, prefix, url: 'https://a.example/mcp' }]);
    for (const prefix of [undefined, 'lp', ''])
      expect(() => parseUpstreams(entry('local', prefix), opts)).toThrowError(
        /UPSTREAMS\[0\]\.id: "local" is reserved: it marks local prompts in the catalog/,
      );
    expect(parseUpstreams(entry('locals'), opts)[0]!.id).toBe('locals');
  });
  it('a prefix whose end runs into the separator, or too long to survive a name cut to its hash, is refused', () => {
    const two = { ...opts, separator: '__' };
    const at = (prefix: string, o = two) =>
      parseUpstreams(JSON.stringify([{ id: 'a', url: 'https://a.example/mcp', prefix }]), o);
    // Under "__", "gh_" would publish gh___x, which reads as gh + "_x": another upstream's name.
    expect(() => at('gh_')).toThrowError(/UPSTREAMS\[0\]\.prefix: .*runs into it/);
    expect(at('gh')[0]!.prefix).toBe('gh');
    expect(at('_gh')[0]!.prefix).toBe('_gh');
    // "." and "-" do not run into "__"; under "._" a trailing "." does not either ("gh.._": first "._" after "gh.").
    expect(at('gh.')[0]!.prefix).toBe('gh.');
    expect(at('gh.', { ...opts, separator: '._' })[0]!.prefix).toBe('gh.');
    expect(() => at('gh_', { ...opts, separator: '._' })).not.toThrow();
    // 49 characters and "." fill the 50 a cut-short name keeps before its hash; 50 do not.
    expect(at('p'.repeat(49), opts)[0]!.prefix).toHaveLength(49);
    expect(() => at('p'.repeat(50), opts)).toThrowError(/UPSTREAMS\[0\]\.prefix: at most 49 characters/);
    // LOCAL_PREFIX by the same rule.
    const local = (LOCAL_PREFIX: string) => () =>
      configOf({ LOCAL_PREFIX, UPSTREAM_SEPARATOR: '__' } as unknown as Env);
    expect(local('me_')).toThrowError(/LOCAL_PREFIX .*runs into it/);
    expect(local('me').call(null).localPrefix).toBe('me');
    const long = namespaced('p'.repeat(49), '.', 'x'.repeat(40));
    expect(long).toHaveLength(MAX_NAME);
    expect(prefixOf(long, '.')?.prefix).toBe('p'.repeat(49));
  });
  it('prefix "" mounts an upstream without a prefix (several may be); other prefixes stay checked', () => {
    const list = parseUpstreams(
      JSON.stringify([
        { id: 'old', url: 'https://a.example/mcp', prefix: '' },
        { id: 'older', url: 'https://b.example/mcp', prefix: '' },
      ]),
      opts,
    );
    expect(list.map((u) => u.prefix)).toEqual(['', '']);
    expect(() =>
      parseUpstreams(JSON.stringify([{ id: 'x', url: 'https://a.example/mcp', prefix: ' ' }]), opts),
    ).toThrowError(/UPSTREAMS\[0\]\.prefix/);
    expect(() =>
      parseUpstreams(JSON.stringify([{ id: 'x', url: 'https://a.example/mcp', prefix: null }]), opts),
    ).toThrowError(/UPSTREAMS\[0\]\.prefix/);
  });
  it('allows http to loopback only in development', () => {
    const cfg = JSON.stringify([{ id: 'dev', url: 'http://127.0.0.1:3001/mcp' }]);
    expect(() => parseUpstreams(cfg, opts)).toThrowError(/must be https/);
    expect(parseUpstreams(cfg, { ...opts, allowHttpLoopback: true })[0]!.url.port).toBe('3001');
  });
});

describe("parseUpstreams: the gateway's own secrets are never sent upstream", () => {
  // What a deployment holds: its own secrets beside one meant for an upstream.
  const env = {
    SIGNING_SECRET: 'sign-value',
    ADMIN_TOKEN: 'admin-value',
    IDP_INTROSPECT: 'introspect-value',
    GH_TOKEN: 's3cret',
    OAUTH_ISSUERS: JSON.stringify([
      { issuer: 'https://idp.example.com', introspection: { clientId: 'gw', clientSecret: 'IDP_INTROSPECT' } },
    ]),
  };
  const own = { ...opts, secrets: env, ownSecrets: ownSecretNames(env) };
  const problemOf = (entry: Record<string, unknown>): string => {
    try {
      parseUpstreams(JSON.stringify([{ id: 'x', url: 'https://attacker.example/mcp', ...entry }]), own);
    } catch (e) {
      return (e as Error).message;
    }
    return '';
  };

  it('names them: SIGNING_SECRET, ADMIN_TOKEN and every introspection client secret', () => {
    expect([...ownSecretNames(env)].sort()).toEqual(['ADMIN_TOKEN', 'IDP_INTROSPECT', 'SIGNING_SECRET']);
    // A bad OAUTH_ISSUERS is access control's error; the fixed names still hold.
    expect([...ownSecretNames({ OAUTH_ISSUERS: '[' })].sort()).toEqual(['ADMIN_TOKEN', 'SIGNING_SECRET']);
  });

  it('refuses them in a header and as an oauth client secret, naming the field and never the value', () => {
    for (const name of ['ADMIN_TOKEN', 'SIGNING_SECRET', 'IDP_INTROSPECT']) {
      const inHeader = problemOf({ headers: { 'x-leak': `a \${${name}} b` } });
      expect(inHeader).toMatch(
        new RegExp(`UPSTREAMS\\[0\\]\\.headers\\.x-leak: ${name} is one of the gateway's own secrets`),
      );
      const oauth = { tokenUrl: 'https://attacker.example/token', clientId: 'c', clientSecret: name };
      expect(problemOf({ oauth })).toMatch(new RegExp(`oauth\\.clientSecret: ${name} is one of the gateway's own`));
      for (const message of [inHeader, problemOf({ oauth })])
        for (const value of ['sign-value', 'admin-value', 'introspect-value']) expect(message).not.toContain(value);
    }
    // Another secret still resolves.
    const [u] = parseUpstreams(
      JSON.stringify([
        { id: 'x', url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer ${GH_TOKEN}' } },
      ]),
      own,
    );
    expect(u!.headers).toEqual({ authorization: 'Bearer s3cret' });
  });
});

describe('parseUpstreams: oauth (client-credentials upstream credentials)', () => {
  const secrets: Record<string, string> = { UP_SECRET: 'the-real-secret-value' };
  const entry = (oauth: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify([{ id: 'up', url: 'https://mcp.example.com/mcp', oauth, ...extra }]);
  it('resolves the secret by name and fills defaults', () => {
    const [u] = parseUpstreams(
      entry({ tokenUrl: 'https://idp.example.com/token', clientId: 'gw', clientSecret: 'UP_SECRET', scope: 'a b' }),
      { ...opts, secrets },
    );
    expect(u!.oauth).toEqual({
      tokenUrl: new URL('https://idp.example.com/token'),
      clientId: 'gw',
      clientSecret: 'the-real-secret-value',
      authMethod: 'client_secret_basic',
      scope: 'a b',
    });
  });
  it('reports every problem by field, never echoing a secret', () => {
    const check = (oauth: unknown, pattern: RegExp, o = { ...opts, secrets }, extra = {}) => {
      let message = '';
      try {
        parseUpstreams(entry(oauth, extra), o);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(pattern);
      expect(message).not.toContain('the-real-secret-value');
    };
    const good = { tokenUrl: 'https://idp.example.com/token', clientId: 'gw', clientSecret: 'UP_SECRET' };
    check({ ...good, clientSecret: 'NOT_SET' }, /UPSTREAMS\[0\]\.oauth\.clientSecret: secret NOT_SET is not set/);
    // A secret pasted where its name belongs is refused without being repeated.
    check(
      { ...good, clientSecret: 'the-real-secret-value' },
      /oauth\.clientSecret: required, the NAME of a Worker secret/,
    );
    check({ ...good, tokenUrl: 'http://idp.example.com/token' }, /oauth\.tokenUrl: must be https/);
    check({ ...good, tokenUrl: 'https://169.254.169.254/token' }, /oauth\.tokenUrl: private/);
    check({ ...good, tokenUrl: 'http://127.0.0.1:9/token' }, /oauth\.tokenUrl: must be https/);
    check({ ...good, tokenUrl: 'https://u:p@idp.example.com/token' }, /oauth\.tokenUrl: credentials/);
    check({ ...good, tokenUrl: 'nope' }, /oauth\.tokenUrl: required, a URL/);
    check({ ...good, clientId: '' }, /oauth\.clientId: required/);
    check({ ...good, scope: 3 }, /oauth\.scope: must be a string/);
    check({ ...good, resource: 'relative' }, /oauth\.resource: must be an absolute URL/);
    check({ ...good, authMethod: 'private_key_jwt' }, /oauth\.authMethod: must be client_secret_basic or/);
    check({ ...good, clientsecret: 'x' }, /oauth\.clientsecret: unknown field/);
    check('UP_SECRET', /oauth: must be an object/);
    check(
      good,
      /headers\.authorization: not with oauth/,
      { ...opts, secrets: { ...secrets, T: 't' } },
      {
        headers: { Authorization: 'Bearer ${T}' },
      },
    );
  });
  it('lets the token endpoint use http on loopback only in development', () => {
    const cfg = JSON.stringify([
      {
        id: 'up',
        url: 'http://127.0.0.1:3001/mcp',
        oauth: { tokenUrl: 'http://127.0.0.1:3002/token', clientId: 'gw', clientSecret: 'UP_SECRET' },
      },
    ]);
    expect(() => parseUpstreams(cfg, { ...opts, secrets })).toThrowError(/oauth\.tokenUrl: must be https/);
    const [u] = parseUpstreams(cfg, { ...opts, secrets, allowHttpLoopback: true });
    expect(u!.oauth!.tokenUrl.port).toBe('3002');
  });
});

describe('isPrivateHost', () => {
  it('flags private, loopback, link-local and mapped addresses', () => {
    for (const h of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '[::1]',
      '[fd00::1]',
      '[fe80::1]',
      'localhost',
      '[::ffff:10.0.0.1]',
    ])
      expect(isPrivateHost(h), h).toBe(true);
    for (const h of ['8.8.8.8', '172.32.0.1', 'mcp.example.com', '[2606:4700::1111]'])
      expect(isPrivateHost(h), h).toBe(false);
  });
});

describe('namespaced names', () => {
  it('are reversible by prefix and use only the safe alphabet', () => {
    const n = namespaced('gh', '.', 'review.pr');
    expect(n).toBe('gh.review.pr');
    expect(prefixOf(n, '.')).toEqual({ prefix: 'gh', rest: 'review.pr' });
    expect(prefixOf('local_prompt', '.')).toBeNull();
  });
  it('without a prefix are the upstream names as they are (hashed only when lossy or long)', () => {
    expect(namespaced('', '.', 'test_simple_prompt')).toBe('test_simple_prompt');
    expect(namespaced('', '.', 'code review')).toMatch(/^code_review-[0-9a-z]{13}$/);
    expect(namespaced('', '.', 'y'.repeat(100)).length).toBeLessThanOrEqual(MAX_NAME);
  });
  it('hash lossy or long names deterministically, staying unique and routable', () => {
    const long = 'x'.repeat(100);
    const a = namespaced('gh', '.', long);
    expect(a.length).toBeLessThanOrEqual(MAX_NAME);
    expect(a).toBe(namespaced('gh', '.', long));
    expect(a).not.toBe(namespaced('gh', '.', `${long}y`));
    expect(prefixOf(a, '.')!.prefix).toBe('gh');
    const spaced = namespaced('gh', '.', 'code review');
    expect(spaced).toMatch(/^gh\.code_review-[0-9a-z]{13}$/);
    expect(spaced).not.toBe(namespaced('gh', '.', 'code_review'));
  });
});

describe('SSRF literal forms', () => {
  const refused = (url: string) => () => parseUpstreams(JSON.stringify([{ id: 'x', url }]), opts);
  it('refuses every embedded, trailing-dot and non-decimal form of a refused address', () => {
    for (const h of [
      '[::a9fe:a9fe]', // IPv4-compatible 169.254.169.254
      '[64:ff9b::a9fe:a9fe]', // NAT64
      '[64:ff9b::169.254.169.254]',
      '[64:ff9b:1::a00:1]', // local-use NAT64
      '[::ffff:a9fe:a9fe]', // IPv4-mapped
      '[::ffff:0:a9fe:a9fe]', // IPv4-translated
      '[2002:a9fe:a9fe::1]', // 6to4 of the metadata address
      '[2002:7f00:1::]', // 6to4 of loopback
      '[::127.0.0.1]',
      '[::ffff:192.168.0.1]',
      '[fec0::1]', // site-local
      '[ff02::1]', // multicast
      '[::]',
      'localhost.',
      'LOCALHOST',
      'foo.localhost.',
      '169.254.169.254.',
      '0x7f.1', // the URL parser turns these into 127.0.0.1
      '2130706433',
      '0251.0376.0251.0376',
      '0xa9fea9fe',
      '100.100.100.200', // CGNAT (Alibaba's metadata)
      '192.0.0.192', // IETF protocol assignments (Oracle's metadata)
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
    ]) {
      expect(isPrivateHost(h), h).toBe(true);
      expect(refused(`https://${h}/mcp`), h).toThrowError(/private, loopback and link-local/);
    }
    for (const h of [
      '8.8.8.8',
      '[2606:4700::1111]',
      '[2002:808:808::1]',
      '[64:ff9b::808:808]',
      '[::ffff:8.8.8.8]',
      'mcp.example.com',
      'mcp.example.com.',
    ])
      expect(isPrivateHost(h), h).toBe(false);
  });
});

describe('prototype names in upstream listings', () => {
  it('an upstream prompt named constructor, toString or __proto__ is listed like any other', () => {
    const [u] = parseUpstreams(
      JSON.stringify([{ id: 'gh', url: 'https://mcp.example.com/mcp', aliases: { renamed: 'fresh' } }]),
      opts,
    );
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'renamed'];
    const listed = sanitizeListing(
      u!,
      '.',
      names.map((name) => ({ name })),
    );
    expect(listed.map((p) => p.name)).toEqual([
      'gh.constructor',
      'gh.toString',
      'gh.__proto__',
      'gh.hasOwnProperty',
      'gh.valueOf',
      'gh.fresh',
    ]);
    expect(listed.map((p) => p.origin.name)).toEqual(names);
  });
  it('aliases and headers keyed by a prototype name are plain entries, not prototype writes', () => {
    const [u] = parseUpstreams(
      '[{"id":"gh","url":"https://mcp.example.com/mcp","aliases":{"__proto__":"proto_alias","constructor":"ctor"}}]',
      opts,
    );
    expect(
      sanitizeListing(u!, '.', [{ name: '__proto__' }, { name: 'constructor' }, { name: 'toString' }]).map(
        (p) => p.name,
      ),
    ).toEqual(['gh.proto_alias', 'gh.ctor', 'gh.toString']);
  });
});

describe('what an upstream publishes, by name and by mount', () => {
  const URL_ = 'https://mcp.example.com/mcp';
  const list = (entries: Record<string, unknown>[], o: ParseOptions = opts) =>
    parseUpstreams(JSON.stringify(entries.map((e) => ({ url: URL_, ...e }))), o);
  const one = (entry: Record<string, unknown>) => list([{ id: 'gh', ...entry }])[0]!;

  it('an alias asked for by a name not yet listed reaches the upstream under its own name', () => {
    const u = one({ aliases: { review_pull_request: 'review_pr' } });
    // Routed by its prefix (no listing): the catalog's guess is the rest of the name, the alias itself.
    expect(servedOriginal(u, '.', 'gh.review_pr', 'review_pr')).toBe('review_pull_request');
    // Routed by the listing: the origin it names.
    expect(servedOriginal(u, '.', 'gh.review_pr', 'review_pull_request')).toBe('review_pull_request');
    // Its original name does not exist for clients; an unaliased name is its own.
    expect(servedOriginal(u, '.', 'gh.review_pull_request', 'review_pull_request')).toBeNull();
    expect(servedOriginal(u, '.', 'gh.triage', 'triage')).toBe('triage');
    // A denied alias publishes nothing: the upstream's own prompt of that name keeps it.
    const denied = one({ aliases: { review_pull_request: 'review_pr' }, deny: ['review_pull_request'] });
    expect(servedOriginal(denied, '.', 'gh.review_pr', 'review_pr')).toBe('review_pr');
  });

  it('an alias onto a name the upstream also lists takes it: the native prompt is neither listed nor served', () => {
    const u = one({ aliases: { a: 'b' } });
    const listed = sanitizeListing(u, '.', [{ name: 'b' }, { name: 'a' }, { name: 'c' }, { name: 'c' }]);
    // One gh.b, the alias's; a name listed twice is listed once.
    expect(listed.map((p) => [p.name, p.origin.name])).toEqual([
      ['gh.b', 'a'],
      ['gh.c', 'c'],
    ]);
    // What is listed is what a get serves.
    expect(servedOriginal(u, '.', 'gh.b', 'b')).toBe('a');
    // A denied alias owns nothing: the native prompt keeps its name, listed and served.
    const denied = one({ aliases: { a: 'b' }, deny: ['a'] });
    expect(sanitizeListing(denied, '.', [{ name: 'b' }, { name: 'a' }]).map((p) => [p.name, p.origin.name])).toEqual([
      ['gh.b', 'b'],
    ]);
    expect(servedOriginal(denied, '.', 'gh.b', 'b')).toBe('b');
  });

  it('deny and allow globs match names holding a line break, anchored at both ends', () => {
    const u = one({ deny: ['*_internal', 'secret?'] });
    for (const name of ['x\n_internal', '\n_internal', 'secret\n'])
      expect(nameAllowed(u, name), JSON.stringify(name)).toBe(false);
    expect(nameAllowed(u, 'x_internal\nmore')).toBe(true);
    expect(sanitizeListing(u, '.', [{ name: 'x\n_internal' }, { name: 'ok' }]).map((p) => p.name)).toEqual(['gh.ok']);
    const allow = one({ allow: ['review*'] });
    expect(nameAllowed(allow, 'review\nx')).toBe(true);
    expect(nameAllowed(allow, 'x\nreview')).toBe(false);
  });

  it('a name longer than a listing keeps is not served, and costs no glob time however long', () => {
    const u = one({ deny: ['*_*_internal'] });
    const longest = 'a'.repeat(MAX_ORIGINAL_NAME);
    const over = `${longest}b`;
    expect(nameAllowed(u, longest)).toBe(true);
    expect(nameAllowed(u, over)).toBe(false);
    expect(servedOriginal(u, '.', publishedName(u, '.', longest), longest)).toBe(longest);
    expect(servedOriginal(u, '.', publishedName(u, '.', over), over)).toBeNull();
    // A client-chosen megabyte name against a glob with two stars: refused before any pattern runs.
    const huge = '_'.repeat(1 << 20);
    expect(servedOriginal(u, '.', `gh.${huge}`, huge)).toBeNull();
  });

  it('a ? glob matches one character, an emoji as much as a letter', () => {
    const u = one({ deny: ['tag?', 'x?y'] });
    for (const name of ['tag🚀', 'tagé', 'x😀y']) expect(nameAllowed(u, name), name).toBe(false);
    // Two characters are not one, whatever their UTF-16 length.
    for (const name of ['tag🚀🚀', 'tagab', 'x😀😀y']) expect(nameAllowed(u, name), name).toBe(true);
  });

  it('two upstreams never share a skill mount: one mounted without a prefix mounts at its id', () => {
    expect(() =>
      list([
        { id: 'b', prefix: '' },
        { id: 'a', prefix: 'b' },
      ]),
    ).toThrowError(/UPSTREAMS\[1\]\.prefix: "b" is where upstream "b", mounted without a prefix, mounts its skills/);
    expect(() =>
      list([
        { id: 'a', prefix: 'b' },
        { id: 'b', prefix: '' },
      ]),
    ).toThrowError(/UPSTREAMS\[1\]\.prefix: "" mounts its skills at its id "b"/);
    expect(
      list([
        { id: 'b', prefix: '' },
        { id: 'a', prefix: 'c' },
      ]).map((u) => u.prefix),
    ).toEqual(['', 'c']);
  });

  it("an unprefixed upstream's names stay out of every other namespace, listed or asked for", () => {
    const [ev, gh] = list(
      [
        { id: 'ev', prefix: '', aliases: { renamed: 'gh.r' } },
        { id: 'gh', prefix: 'gh' },
      ],
      { ...opts, localPrefix: 'me' },
    );
    const names = ['gh.x', 'me.y', 'renamed', 'ghx.z', 'plain', 'gh'].map((name) => ({ name }));
    expect(sanitizeListing(ev!, '.', names).map((p) => p.name)).toEqual(['ghx.z', 'plain', 'gh']);
    expect(servedOriginal(ev!, '.', 'gh.x', 'gh.x')).toBeNull();
    expect(servedOriginal(ev!, '.', 'plain', 'plain')).toBe('plain');
    // The prefixed upstream's own names are its own.
    expect(sanitizeListing(gh!, '.', [{ name: 'x' }]).map((p) => p.name)).toEqual(['gh.x']);
  });

  it("a kept listing of an unprefixed upstream gives up a namespace another upstream's prefix took since", async () => {
    const [before] = list([{ id: 'ev', prefix: '' }]);
    const prompts = sanitizeListing(before!, '.', [{ name: 'gh.x' }, { name: 'plain' }]);
    expect(prompts.map((p) => p.name)).toEqual(['gh.x', 'plain']);
    const state = { id: 'ev', prefix: '', prompts, digest: 'd', ok: false, lastSuccess: null, lastError: 'down' };
    const [now] = list([
      { id: 'ev', prefix: '' },
      { id: 'gh', prefix: 'gh' },
    ]);
    // Stale (the upstream is down, so no new listing replaces it), and still not listed under gh's namespace.
    expect((await restated(state, now!, '.'))?.prompts.map((p) => p.name)).toEqual(['plain']);
    expect(await restated(state, before!, '.')).toBeUndefined();
    // And a listing made before that prefix existed is not the upstream's now.
    expect(listingKey(now!)).not.toBe(listingKey(before!));
  });

  it('a kept listing restated under an alias configured since lists its name once, as a get routes it', async () => {
    const before = one({});
    const prompts = sanitizeListing(before, '.', [{ name: 'b' }, { name: 'a' }]);
    const state = { id: 'gh', prefix: 'gh', prompts, digest: 'd', ok: false, lastSuccess: null, lastError: 'down' };
    const now = one({ aliases: { a: 'b' } });
    const restatedNow = await restated(state, now, '.');
    expect(restatedNow?.prompts.map((p) => [p.name, p.origin.name])).toEqual([['gh.b', 'a']]);
    expect(servedOriginal(now, '.', 'gh.b', 'b')).toBe('a');
    // The prompt that lost its name is named for /status, and the old configuration's skips are gone.
    expect(restatedNow?.skipped).toEqual([{ name: 'gh.b', original: 'b', reason: 'the alias of "a" takes the name' }]);
    const old = { ...state, skipped: [{ name: 'gh.c', original: 'c', reason: 'listed twice' }] };
    expect((await restated(old, one({ aliases: { b: 'z' } }), '.'))?.skipped).toBeUndefined();
  });
});

describe('the list in force at run time (upstreamsInForce)', () => {
  it('leaves out each entry with a problem, keeps the rest, and keeps a left-out prefix reserved', () => {
    const raw = JSON.stringify([
      { id: 'gh', url: 'http://mcp.example.com/mcp' },
      { id: 'ev', url: 'https://ev.example.com/mcp', prefix: '' },
      { id: 'ok', url: 'https://ok.example.com/mcp', headers: { authorization: 'Bearer ${MISSING}' } },
    ]);
    const { list, problems } = upstreamsInForce(raw, opts);
    expect(list.map((u) => u.id)).toEqual(['ev']);
    expect(problems).toEqual([
      expect.stringMatching(/^UPSTREAMS\[0\]\.url: must be https/),
      'UPSTREAMS[2].headers.authorization: secret MISSING is not set',
    ]);
    // gh's names stay gh's while it is left out: the unprefixed upstream never takes them meanwhile.
    expect(list[0]!.reserved).toEqual(['gh', 'ok']);
  });

  it('serves the first MAX_UPSTREAMS entries of a longer list and says the rest are left out', () => {
    const entries = Array.from({ length: MAX_UPSTREAMS + 2 }, (_, i) => ({
      id: `u${i}`,
      url: `https://u${i}.example.com/mcp`,
    }));
    // A bad entry past the bound is not even read: its problem is the bound's.
    entries.push({ id: 'Bad Id', url: 'nope' });
    const { list, problems } = upstreamsInForce(JSON.stringify(entries), opts);
    expect(list.map((u) => u.id)).toEqual(entries.slice(0, MAX_UPSTREAMS).map((e) => e.id));
    const bound = `UPSTREAMS: ${MAX_UPSTREAMS + 3} upstreams, at most ${MAX_UPSTREAMS}: UPSTREAMS[${MAX_UPSTREAMS}] and later are left out`;
    expect(problems).toEqual([bound]);
    // The admin API's check refuses the list whole.
    expect(() => parseUpstreams(JSON.stringify(entries), opts)).toThrow(bound);
    expect(parseUpstreams(JSON.stringify(entries.slice(0, MAX_UPSTREAMS)), opts)).toHaveLength(MAX_UPSTREAMS);
  });

  it('a list that is no JSON array is no upstreams, and says why', () => {
    expect(upstreamsInForce('[{', opts)).toEqual({
      list: [],
      problems: [expect.stringMatching(/^UPSTREAMS is not valid JSON/)],
    });
    expect(upstreamsInForce('{}', opts)).toEqual({
      list: [],
      problems: ['UPSTREAMS must be a JSON array of upstream objects'],
    });
    expect(upstreamsInForce(' ', opts)).toEqual({ list: [], problems: [] });
  });
});
