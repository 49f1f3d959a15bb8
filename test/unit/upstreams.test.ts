import { describe, expect, it } from 'vitest';
import { isPrivateHost, nameAllowed, parseUpstreams } from '../../src/catalog/upstreams/config.js';
import { MAX_NAME, namespaced, prefixOf } from '../../src/catalog/upstreams/names.js';

const opts = { separator: '.', secrets: { GH_TOKEN: 's3cret' }, allowHttpLoopback: false };

describe('parseUpstreams', () => {
  it('fills defaults and resolves secrets in headers', () => {
    const [u] = parseUpstreams(JSON.stringify([{ id: 'gh', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' }, allow: ['review*'] }]), opts);
    expect(u).toMatchObject({ id: 'gh', prefix: 'gh', timeoutMs: 5000, enabled: true, headers: { authorization: 'Bearer s3cret' }, allow: ['review*'], deny: [] });
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
  it('prefix "" mounts an upstream without a prefix (several may be); other prefixes stay checked', () => {
    const list = parseUpstreams(JSON.stringify([{ id: 'old', url: 'https://a.example/mcp', prefix: '' }, { id: 'older', url: 'https://b.example/mcp', prefix: '' }]), opts);
    expect(list.map((u) => u.prefix)).toEqual(['', '']);
    expect(() => parseUpstreams(JSON.stringify([{ id: 'x', url: 'https://a.example/mcp', prefix: ' ' }]), opts)).toThrowError(/UPSTREAMS\[0\]\.prefix/);
    expect(() => parseUpstreams(JSON.stringify([{ id: 'x', url: 'https://a.example/mcp', prefix: null }]), opts)).toThrowError(/UPSTREAMS\[0\]\.prefix/);
  });
  it('allows http to loopback only in development', () => {
    const cfg = JSON.stringify([{ id: 'local', url: 'http://127.0.0.1:3001/mcp' }]);
    expect(() => parseUpstreams(cfg, opts)).toThrowError(/must be https/);
    expect(parseUpstreams(cfg, { ...opts, allowHttpLoopback: true })[0]!.url.port).toBe('3001');
  });
});

describe('isPrivateHost', () => {
  it('flags private, loopback, link-local and mapped addresses', () => {
    for (const h of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '169.254.169.254', '[::1]', '[fd00::1]', '[fe80::1]', 'localhost', '[::ffff:10.0.0.1]'])
      expect(isPrivateHost(h), h).toBe(true);
    for (const h of ['8.8.8.8', '172.32.0.1', 'mcp.example.com', '[2606:4700::1111]']) expect(isPrivateHost(h), h).toBe(false);
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
