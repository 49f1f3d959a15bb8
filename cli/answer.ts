/**
 * What the admin API answered, checked before the CLI uses it. Something else can answer a 2xx
 * too: a Cloudflare Access login page in front of the gateway, another server at a wrong --url.
 * Used as it came, such an answer crashes a command with a TypeError, or worse prints
 * "revoked key undefined" and exits 0; so a 2xx must be JSON, and hold every field its command
 * reads (each endpoint's `Shape`, api-types.ts), or the command stops with an error saying so.
 */
import type { Issue } from '../src/catalog/types.js';
import { isRecord } from '../src/lib/json.js';
import { CliError, type Field, type Shape } from './api-types.js';
import { stopped } from './interrupt.js';

/** What is wrong with `value` as `field` ("keys[3].id is missing"), or undefined when nothing is. */
function problem(value: unknown, field: Field, at: string): string | undefined {
  if (Array.isArray(field)) {
    if (!Array.isArray(value)) return `${at} is not a list`;
    for (const [i, item] of value.entries()) {
      const p = problem(item, field[0], `${at}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof field === 'object') {
    if (!isRecord(value)) return `${at || 'the answer'} is not an object`;
    for (const [key, f] of Object.entries(field)) {
      const p = problem(value[key], f, at ? `${at}.${key}` : key);
      if (p) return p;
    }
    return undefined;
  }
  const kind = field.replace(/\?$/, '');
  if (value === undefined || value === null) return kind === field ? `${at} is missing` : undefined;
  const actual = Array.isArray(value) ? 'array' : typeof value;
  return actual === kind ? undefined : `${at} is not ${kind === 'array' ? 'a list' : `a ${kind}`}`;
}

const notTheApi = (what: string, why: string) =>
  new CliError(`${what}: not the admin API's answer (${why}); check --url (or PROMPTGATE_URL)`);

/** The error of an answer that is not a 2xx, with the issues the gateway listed. */
function failure(res: Response, json: unknown, what: string): CliError {
  const error = isRecord(json) && isRecord(json.error) ? (json.error as { message?: unknown; issues?: unknown }) : {};
  const listed = Array.isArray(error.issues) ? (error.issues.filter(isRecord) as Partial<Issue>[]) : [];
  const issues = listed.map((i) => `\n  ${i.path}: ${i.message}`).join('');
  const message = typeof error.message === 'string' ? error.message : res.statusText;
  return new CliError(`${what} failed (HTTP ${res.status}): ${message}${issues}`, res.status >= 500);
}

/** The body, unless a signal cut it short: that is the signal's doing, not the gateway's. */
async function read<T>(body: Promise<T>): Promise<T | undefined> {
  try {
    return await body;
  } catch {
    stopped.throwIfAborted();
    return undefined;
  }
}

/** `res`'s JSON, as `shape` says it is; a failure's error, with its issues, when `res` is not a 2xx. */
export async function answerOf<T>(res: Response, what: string, shape: Shape): Promise<T> {
  const text = await read(res.text());
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    // Said below: what answered is named by its status and type.
  }
  if (!res.ok) throw failure(res, json, what);
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw notTheApi(what, `HTTP ${res.status}, ${type || 'no content type'}`);
  if (json === undefined) throw notTheApi(what, `HTTP ${res.status}, a body that is not JSON`);
  const wrong = problem(json, shape, '');
  if (wrong) throw notTheApi(what, wrong);
  return json as T;
}

/** `res`'s bytes (a skill file: its digest, not its type, says whether it is the one asked for). */
export async function bytesOf(res: Response, what: string): Promise<Uint8Array> {
  if (!res.ok) throw failure(res, await read(res.json()), what);
  const body = await read(res.arrayBuffer());
  if (body === undefined) throw new CliError(`${what}: the answer was cut short`);
  return new Uint8Array(body);
}
