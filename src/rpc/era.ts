/**
 * Which protocol era a POST body speaks. A body whose params carry
 * `_meta["io.modelcontextprotocol/protocolVersion"]` (the envelope claim) is
 * modern (2026-07-28); anything else is legacy. The body decides (spec §6),
 * with one exception taken from the SDK's inbound classifier: a body with no
 * claim under a header naming a modern revision is a broken modern message,
 * not a legacy one. Such a request that is not valid JSON-RPC (a batch
 * included) is 400 -32600 first; a valid one is refused with 400 -32602 naming the missing envelope
 * keys, an `initialize` is a header mismatch (-32020), and a notification is
 * modern. Header values are OWS-stripped first.
 */
import { CLIENT_CAPABILITIES_META, isModernVersion, MODERN_VERSION_META } from '../lib/versions.js';
import { readMessage } from './envelope.js';
import { ErrorCode, HttpError } from './errors.js';
import { plainHeaderValue } from './modern-headers.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../lib/json.js';

export type Era = 'legacy' | 'modern';

function metaOf(m: unknown): Record<string, unknown> | undefined {
  if (!isRecord(m) || !isRecord(m.params)) return undefined;
  return isRecord(m.params._meta) ? m.params._meta : undefined;
}

function carriesModernMeta(m: unknown): boolean {
  const meta = metaOf(m);
  return meta !== undefined && MODERN_VERSION_META in meta;
}

/** A modern header on a claim-less request: which envelope keys are missing (the SDK's wording and data). */
function missingEnvelope(m: Record<string, unknown>, header: string, id: RequestId | undefined): HttpError {
  const meta = metaOf(m);
  const missing =
    meta === undefined ? ['_meta'] : [MODERN_VERSION_META, CLIENT_CAPABILITIES_META].filter((k) => !(k in meta));
  return new HttpError(
    400,
    ErrorCode.InvalidParams,
    `Invalid params: the MCP-Protocol-Version header names protocol revision ${header}, but the request is missing the required per-request envelope key(s): ${missing.join(', ')}`,
    { data: { envelope: { missing } }, id },
  );
}

export function eraOf(body: unknown, protocolVersionHeader?: string): Era {
  const header = protocolVersionHeader === undefined ? undefined : plainHeaderValue(protocolVersionHeader);
  const modernHeader = isModernVersion(header);
  // A batch under a modern header is the modern entry's -32600 (2026-07-28 has none), not a legacy version error.
  if (Array.isArray(body)) return modernHeader || body.some(carriesModernMeta) ? 'modern' : 'legacy';
  if (carriesModernMeta(body)) return 'modern';
  if (!modernHeader) return 'legacy';
  // The JSON-RPC shape is judged before the envelope, as the SDK's classifier does: a body that is no
  // message (a number, no method, a null id) is -32600, never a legacy "unsupported version" -32000.
  const msg = readMessage(body);
  if (msg.kind !== 'request') return 'modern'; // a notification or a stray response: answered 202 by the modern entry
  const id = msg.id;
  if (msg.method === 'initialize')
    throw new HttpError(
      400,
      ErrorCode.HeaderMismatch,
      `Bad Request: an initialize request (legacy handshake) was sent with the modern MCP-Protocol-Version header ${header}`,
      {
        data: { mismatch: { header: 'MCP-Protocol-Version', body: 'initialize' } },
        id,
      },
    );
  throw missingEnvelope(body as Record<string, unknown>, header, id);
}
