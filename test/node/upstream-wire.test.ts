/**
 * Header values the upstream client sends (Mcp-Name, 2026-07-28): read back by the server's decoding
 * (the gateway's own, src/rpc/modern-headers.ts), each is the value it stands for.
 */
import { describe, expect, it } from 'vitest';
import { headerValue } from '../../src/catalog/upstreams/wire.js';
import { decodeHeaderValue } from '../../src/rpc/modern-headers.js';

describe('headerValue', () => {
  it('sends a plain value as it is, and anything else in the base64 sentinel', () => {
    for (const v of ['greet', 'gh.review_pr', 'a b', 'file:///x?y=1', '=?base64?', '?='])
      expect(headerValue(v), v).toBe(v);
    for (const v of ['café', ' lead', 'trail ', 'tab\there', '🚀']) {
      expect(headerValue(v), v).toMatch(/^=\?base64\?.*\?=$/);
      expect(decodeHeaderValue(headerValue(v)), v).toBe(v);
    }
  });

  it('encodes a plain value shaped like the sentinel, so it is not decoded as one', () => {
    for (const v of ['=?base64?eA==?=', '=?base64??=', '=?base64?not base64?=', '=?base64?Z3JlZXQ=?=']) {
      expect(headerValue(v), v).not.toBe(v);
      expect(decodeHeaderValue(headerValue(v)), v).toBe(v);
    }
  });
});
