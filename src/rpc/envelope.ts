/**
 * JSON-RPC 2.0 envelope: parsing the body, classifying each message, and
 * the HTTP 200 or 202 that carries a reply back (both eras; errors that are
 * HTTP errors go through app.onError instead).
 *
 * Hand-checked rather than run through the SDK's zod schemas: this is the
 * hot path of every POST, and the checks are the few the transport needs
 * (the method handlers validate their own params).
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../lib/json.js';
import { ErrorCode, HttpError } from './errors.js';

export type Params = Record<string, unknown> | undefined;

export type Message =
  | { kind: 'request'; id: RequestId; method: string; params: Params }
  | { kind: 'notification'; method: string; params: Params }
  | { kind: 'response'; id: RequestId | null };

/**
 * A string, or an integer a double holds exactly: a larger one would be echoed as a different
 * number (9223372036854775807 comes back as 9223372036854776000), so it is not an id we can read.
 */
export const isId = (v: unknown): v is RequestId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

/** The id of a body that is one message and names a readable one, for errors raised before the message is read. */
export function readableId(body: unknown): RequestId | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const id = (body as { id?: unknown }).id;
  return isId(id) ? id : undefined;
}

export function parseBody(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, ErrorCode.ParseError, 'Parse error: body is not valid JSON');
  }
  if (nestedDeeperThan(body, MAX_JSON_DEPTH))
    throw new HttpError(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      {
        id: readableId(body),
      },
    );
  return body;
}

/** Classifies one message, or throws a 400 -32600 naming what is wrong (with the id when readable). */
export function readMessage(x: unknown): Message {
  const bad = (why: string, id?: RequestId) =>
    new HttpError(400, ErrorCode.InvalidRequest, `Invalid Request: ${why}`, { id });
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw bad('a message must be a JSON object');
  const m = x as Record<string, unknown>;
  const id = isId(m.id) ? m.id : undefined;
  if (m.jsonrpc !== '2.0') throw bad('jsonrpc must be "2.0"', id);
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') throw bad('method must be a non-empty string', id);
    const p = m.params;
    if (p !== undefined && (typeof p !== 'object' || p === null || Array.isArray(p)))
      throw bad('params must be an object', id);
    const params = p as Params;
    if (!('id' in m)) return { kind: 'notification', method: m.method, params };
    if (id === undefined) throw bad('id must be a string or an integer of at most 2^53 - 1');
    return { kind: 'request', id, method: m.method, params };
  }
  if (id !== undefined && ('result' in m || 'error' in m)) return { kind: 'response', id };
  // JSON-RPC 2.0 §5: an error about a request whose id could not be read carries `"id": null`.
  if (m.id === null && 'error' in m) return { kind: 'response', id: null };
  throw bad('not a request, notification or response', id);
}

/** Marker for a result that is already serialized JSON (cached list pages). */
export class RawJson {
  constructor(
    readonly json: string,
    /** Already a whole modern result (resultType and serverInfo `_meta` included). */
    readonly modern = false,
  ) {}
}

export function resultMessage(id: RequestId, result: unknown): string {
  const body = result instanceof RawJson ? result.json : JSON.stringify(result);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${body}}`;
}

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

/**
 * A JSON-RPC reply (or batch) as an HTTP 200, both eras. Synchronous when the
 * reply is: a warm list makes no promise between the body read and here.
 */
export function jsonResponse(reply: string, extraHeaders?: Record<string, string>): Response;
export function jsonResponse(reply: string | Promise<string>): Response | Promise<Response>;
export function jsonResponse(
  reply: string | Promise<string>,
  extraHeaders?: Record<string, string>,
): Response | Promise<Response> {
  if (typeof reply !== 'string') return reply.then((r) => jsonResponse(r));
  return new Response(reply, {
    status: 200,
    headers: extraHeaders ? { ...JSON_HEADERS, ...extraHeaders } : JSON_HEADERS,
  });
}

/** 202: a notification or a response was received; nothing to answer. */
export const accepted = (): Response => new Response(null, { status: 202 });
