/**
 * The modern result shape (2026-07-28): `resultType` on every result, and
 * serverInfo in result `_meta`. Pre-serialized results get a memoised head
 * spliced in front instead of being parsed and re-encoded.
 *
 * Results carry the short serverInfo (`name`, `version`: what identifies the
 * server); `server/discover` carries the whole Implementation (title,
 * description, website). That keeps ~130 bytes off every list response.
 */
import { SERVER_INFO_META, type ProtocolVersion } from '../lib/versions.js';
import { RawJson } from './envelope.js';
import { serverInfo } from './server-info.js';

const heads = new Map<ProtocolVersion, string>();

/** `{"resultType":"complete","_meta":{…serverInfo…}` without the closing brace. */
export function modernHead(version: ProtocolVersion): string {
  let head = heads.get(version);
  if (!head)
    heads.set(
      version,
      (head = `{"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META]: briefInfo(version) })}`),
    );
  return head;
}

/** A serialized object result (`{...}`) as a modern result. */
export function modernJson(json: string, version: ProtocolVersion): string {
  return json.length > 2 ? `${modernHead(version)},${json.slice(1)}` : `${modernHead(version)}}`;
}

export function modernResult(result: unknown, version: ProtocolVersion): unknown {
  if (result instanceof RawJson) return result.modern ? result : new RawJson(modernJson(result.json, version), true);
  const r = (result ?? {}) as Record<string, unknown>;
  const meta = typeof r._meta === 'object' && r._meta !== null ? (r._meta as Record<string, unknown>) : {};
  return {
    resultType: typeof r.resultType === 'string' ? r.resultType : 'complete',
    ...r,
    _meta: { [SERVER_INFO_META]: briefInfo(version), ...meta },
  };
}

function briefInfo(version: ProtocolVersion): { name: string; version: string } {
  const { name, version: v } = serverInfo(version);
  return { name, version: v };
}
