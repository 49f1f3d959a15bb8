/**
 * lib/log.ts: one JSON line per call, `msg` first, on the console method of
 * its level (tests and Workers Logs read those), and no credential printed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { log } from '../../src/lib/log.js';
import { RequestRecord } from '../../src/lib/record.js';
import { logRequest } from '../../src/observe/log-line.js';

afterEach(() => vi.restoreAllMocks());

function captured(method: 'log' | 'warn' | 'error'): string[] {
  const lines: string[] = [];
  vi.spyOn(console, method).mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(' ')));
  return lines;
}

describe('log', () => {
  it('writes one JSON line, msg first, on the level’s console method', () => {
    const info = captured('log');
    const warn = captured('warn');
    const error = captured('error');
    log.info('catalog written', { generation: 3, added: ['a'] });
    log.warn('upstream list failed', { upstream: 'huge', error: 'timeout', failures: 2 });
    log.error('SIGNING_SECRET is not set');
    expect(info).toEqual(['{"msg":"catalog written","generation":3,"added":["a"]}']);
    expect(warn).toEqual(['{"msg":"upstream list failed","upstream":"huge","error":"timeout","failures":2}']);
    expect(error).toEqual(['{"msg":"SIGNING_SECRET is not set"}']);
  });

  it('prints fields named for credentials as [redacted]', () => {
    const warn = captured('warn');
    log.warn('rejected', {
      authorization: 'Bearer s3cret',
      adminToken: 's3cret',
      headers: { cookie: 's3cret' },
      status: 401,
    });
    expect(warn).toEqual([
      '{"msg":"rejected","authorization":"[redacted]","adminToken":"[redacted]","headers":"[redacted]","status":401}',
    ]);
    expect(warn[0]).not.toContain('s3cret');
  });

  it('takes JSON values only: a Headers object does not type-check', () => {
    const warn = captured('warn');
    // @ts-expect-error Headers (a class with methods) is not a LogValue.
    log.warn('request', { received: new Headers({ authorization: 'Bearer s3cret' }) });
    // At run time Headers serialises to {}: nothing of it is printed either.
    expect(warn).toEqual(['{"msg":"request","received":{}}']);
  });
});

describe('the request line (observe/log-line.ts)', () => {
  it('names a tool execution error `tool_error`, the call it speaks of, with no JSON-RPC code', () => {
    const info = captured('log');
    const record = new RequestRecord();
    record.batch = true;
    record.call('tools/call', 1).prompt = 'ok';
    const failed = record.call('tools/call', 2);
    failed.prompt = 'greet';
    failed.toolError = true;
    logRequest(record, {
      method: 'POST',
      path: '/mcp',
      status: 200,
      durationMs: 1,
      principal: undefined,
      errorCode: undefined,
    });
    const line = JSON.parse(info[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      'error.type': 'tool_error',
      'gen_ai.prompt.name': 'greet',
      'jsonrpc.request.id': '2',
    });
    expect(line).not.toHaveProperty('rpc.response.status_code');
  });

  it('prints every field it can have, none hidden by the credential filter', () => {
    const info = captured('log');
    const record = new RequestRecord();
    record.era = 'legacy';
    record.version = '2025-11-25';
    record.sessionId = 'sid';
    record.client = { name: 'c', version: '1' };
    record.traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    record.cache = 'upstream';
    record.upstream = 'up';
    record.upstreamMs = 5;
    record.call('prompts/list', 1);
    const failed = record.call('prompts/get', 'x');
    failed.prompt = 'p';
    failed.errorCode = -32602;
    logRequest(record, {
      method: 'POST',
      path: '/mcp',
      status: 200,
      durationMs: 3,
      principal: 'key:k',
      errorCode: undefined,
    });
    expect(info).toHaveLength(1);
    const line = JSON.parse(info[0]!) as Record<string, unknown>;
    expect(Object.keys(line).sort()).toEqual(
      [
        'msg',
        'http.request.method',
        'url.path',
        'http.response.status_code',
        'duration_ms',
        'mcp.method.name',
        'jsonrpc.request.id',
        'gen_ai.prompt.name',
        'mcp.protocol.version',
        'mcp.session.id',
        'error.type',
        'rpc.response.status_code',
        'promptgate.era',
        'promptgate.client',
        'promptgate.principal',
        'promptgate.cache',
        'promptgate.upstream',
        'promptgate.upstream_ms',
        'promptgate.calls',
        'trace_id',
      ].sort(),
    );
    expect(Object.values(line)).not.toContain('[redacted]');
  });
});
