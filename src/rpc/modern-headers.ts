/**
 * The standard request headers of 2026-07-28 (SEP-2243): MCP-Protocol-Version,
 * Mcp-Method, and Mcp-Name for the methods that name a primitive. Each must
 * be present and agree with the body; values that are not plain ASCII use
 * the `=?base64?…?=` sentinel. Any failure is 400 with -32020 and the
 * disagreeing pair in `data.mismatch`, so a client can tell which one.
 */
import { ErrorCode, HttpError } from './errors.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** Visible ASCII and inner spaces: anything else (NBSP, a BOM, VT) must be sent in the sentinel. */
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * A header value as HTTP reads it (spaces and tabs around it are not part of it), or undefined when
 * it holds a character a plain value may not: JavaScript's trim() would also strip NBSP and U+3000,
 * and `greet\u00a0` would pass for `greet` here while a proxy matching the header saw another name.
 */
export function plainHeaderValue(raw: string): string | undefined {
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  return value === '' || PLAIN.test(value) ? value : undefined;
}

/** Methods that name a primitive, and the param mirrored into Mcp-Name ("Mcp-Name: <params.name | params.uri>"). */
const NAMED: ReadonlyMap<string, 'name' | 'uri'> = new Map([
  ['prompts/get', 'name'],
  ['tools/call', 'name'],
  ['resources/read', 'uri'],
]);

/**
 * The header's value with the sentinel decoded; undefined when the sentinel is malformed or the value
 * holds a character a plain value may not (plainHeaderValue). A sentinel
 * both starts with `=?base64?` and ends with `?=`; a value with only the start is literal.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = plainHeaderValue(raw);
  if (value === undefined) return undefined;
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const m = SENTINEL.exec(value);
  if (!m || m[1]!.length % 4 !== 0) return undefined;
  try {
    const bytes = Uint8Array.from(atob(m[1]!), (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}

function mismatch(id: RequestId, header: string, body: string): HttpError {
  return new HttpError(400, ErrorCode.HeaderMismatch, `Bad Request: the request headers and body disagree: ${body}`, {
    data: { mismatch: { header, body } },
    id,
  });
}

/**
 * The request's headers as the check reads them (a RequestScope fits);
 * Mcp-Name is read only for methods that name a primitive.
 */
export interface StandardHeaders {
  readonly protocolVersion: string | undefined;
  header(name: string): string | undefined;
}

/**
 * Throws -32020 when an Mcp-Method header names another method than the body. The SDK checks this
 * before the revision (-32022), and the rest of the headers after it; modern.ts does the same.
 */
export function checkMethodHeader(h: StandardHeaders, id: RequestId, method: string): void {
  const methodHeader = h.header('mcp-method');
  if (methodHeader !== undefined && plainHeaderValue(methodHeader) !== method)
    throw mismatch(
      id,
      'Mcp-Method',
      `the Mcp-Method header says ${methodHeader.slice(0, 100)} but the body names ${method.slice(0, 100)}`,
    );
}

/** Throws the -32020 error for the first header that is missing or disagrees with the body. */
export function checkStandardHeaders(
  h: StandardHeaders,
  id: RequestId,
  version: string,
  method: string,
  params: Record<string, unknown> | undefined,
): void {
  if (h.protocolVersion === undefined)
    throw mismatch(
      id,
      'MCP-Protocol-Version',
      `the body names protocol version ${version} but the MCP-Protocol-Version header is absent`,
    );
  if (plainHeaderValue(h.protocolVersion) !== version)
    throw mismatch(
      id,
      'MCP-Protocol-Version',
      `the MCP-Protocol-Version header says ${h.protocolVersion.slice(0, 40)} but the body names ${version}`,
    );
  // Its value, when present, was compared with the body's before the revision (checkMethodHeader).
  if (h.header('mcp-method') === undefined)
    throw mismatch(id, 'Mcp-Method', `the body names method ${method} but the Mcp-Method header is absent`);
  const field = NAMED.get(method);
  if (field === undefined) return;
  const bodyName = params?.[field];
  const name = h.header('mcp-name');
  if (name === undefined) {
    if (typeof bodyName === 'string')
      throw mismatch(id, 'Mcp-Name', `the body names "${bodyName.slice(0, 100)}" but the Mcp-Name header is absent`);
    return;
  }
  // A name that is not a string is the method's own -32602 (as in the SDK), not a header mismatch.
  if (typeof bodyName !== 'string') return;
  const decoded = decodeHeaderValue(name);
  if (decoded === undefined)
    throw mismatch(
      id,
      'Mcp-Name',
      'the Mcp-Name header is neither plain visible ASCII nor a valid =?base64?…?= sentinel',
    );
  if (decoded !== bodyName)
    throw mismatch(
      id,
      'Mcp-Name',
      `the Mcp-Name header names "${decoded.slice(0, 100)}" but the body names ${JSON.stringify(bodyName)?.slice(0, 100)}`,
    );
}
