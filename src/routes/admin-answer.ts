/**
 * How the admin API answers a write (prompts and skills alike): the writer's result as JSON, a
 * refused write as 422 with every issue, an unknown name as 404. Query flags read one way.
 */
import type { Context } from 'hono';
import type { WriteResult } from '../catalog/catalog-writer.js';
import { capIssues, problemCount } from '../catalog/issues.js';
import type { SetDiff } from '../catalog/diff.js';
import type { Issue } from '../catalog/types.js';
import type { AppEnv } from '../env.js';
import { log } from '../lib/log.js';
import { ApiError } from './api-error.js';
import {
  HISTORY_PAGE_MAX,
  LIST_PAGE_MAX,
  type HistoryOf,
  type HistoryPage,
  type ListPage,
  type Stored,
} from '../catalog/versions-table.js';

/**
 * The on/off query flags a write takes, read strictly: on when present bare or as 1/true/yes, off
 * as 0/false/no. Any other value, or a parameter the route does not take (a misspelt `dry-run`
 * that would otherwise publish, and prune, for real), is a 400 before anything is written.
 */
export function flags<K extends string>(c: Context<AppEnv>, allowed: readonly K[]): Record<K, boolean> {
  const out = Object.fromEntries(allowed.map((k) => [k, false])) as Record<K, boolean>;
  const seen = new Set<string>();
  for (const [key, raw] of new URL(c.req.url).searchParams) {
    // `?prune=1&prune=0` says two things: refused, not read as either.
    if (seen.has(key)) throw new ApiError(400, 'invalid_query', `${key.slice(0, 40)} is given more than once`);
    seen.add(key);
    if (!(allowed as readonly string[]).includes(key))
      throw new ApiError(
        400,
        'invalid_query',
        `Unknown query parameter "${key.slice(0, 40)}"; this request takes ${allowed.length ? allowed.join(', ') : 'none'}`,
      );
    const value = raw.toLowerCase();
    if (ON.has(value)) out[key as K] = true;
    else if (!OFF.has(value))
      throw new ApiError(400, 'invalid_query', `${key} must be 1 or 0, got "${raw.slice(0, 40)}"`);
  }
  return out;
}

const ON = new Set(['', '1', 'true', 'yes']);
const OFF = new Set(['0', 'false', 'no']);

/** ?prune and ?dry_run of a whole-set publish (prompts or skills). */
export function writeFlags(c: Context<AppEnv>): { prune: boolean; dryRun: boolean } {
  const f = flags(c, ['prune', 'dry_run']);
  return { prune: f.prune, dryRun: f.dry_run };
}

/** The versions a history page holds when `?limit` does not say. */
const HISTORY_DEFAULT = 100;

/** A query parameter that must be an integer from `min` to `max`, if given. */
function intQuery(c: Context<AppEnv>, key: string, min: number, max: number): number | undefined {
  const raw = c.req.query(key);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ApiError(400, 'invalid_query', `${key} must be an integer from ${min} to ${max}`);
  return n;
}

/** `?limit=` (1 to HISTORY_PAGE_MAX), `?before=<version>` and `?facts=1` (no records) of a history request. */
export function historyPage(c: Context<AppEnv>): HistoryPage {
  const int = (key: string, min: number, max: number) => intQuery(c, key, min, max);
  const before = int('before', 1, Number.MAX_SAFE_INTEGER);
  const facts = int('facts', 0, 1) === 1;
  return {
    limit: int('limit', 1, HISTORY_PAGE_MAX) ?? HISTORY_DEFAULT,
    ...(before !== undefined && { before }),
    ...(facts && { facts }),
  };
}

/**
 * A page of the current prompts or skills as JSON, `{<kind>: [...], next?}`: `?limit=` (1 to
 * LIST_PAGE_MAX, default the most) records named after `?after=`; `next` is the next page's `after`,
 * and `generation` the catalog's when the page was read (a reader of pages restarts when it moves).
 */
export async function listAnswer(
  c: Context<AppEnv>,
  kind: 'prompts' | 'skills',
  read: (page: ListPage) => Promise<{ records: Stored<unknown>[]; next?: string; generation: number }>,
) {
  const after = c.req.query('after');
  if (after !== undefined && (after === '' || after.length > 200))
    throw new ApiError(400, 'invalid_query', 'after must be a name (the `next` of the previous page)');
  const got = await read({ limit: intQuery(c, 'limit', 1, LIST_PAGE_MAX) ?? LIST_PAGE_MAX, ...(after && { after }) });
  const records = got.records.map((s) => ({ ...(s.record as object), _version: s.version, _updatedAt: s.updatedAt }));
  return c.json({ [kind]: records, generation: got.generation, ...(got.next !== undefined && { next: got.next }) });
}

/** A history page as JSON: `next` (the `before` of the older page) when there is one; 404 for a name with no version. */
export function historyAnswer(c: Context<AppEnv>, name: string, noun: string, got: HistoryOf<unknown>) {
  if (got.unknown) throw new ApiError(404, 'not_found', `No ${noun} named "${name}"`);
  return c.json({ name, history: got.history, ...(got.next !== undefined && { next: got.next }) });
}

/** Names a log line lists per kind of change: a publish of thousands must not make a line of megabytes. */
const LOGGED_NAMES = 50;

/** A change for the log: the names added, changed and removed (the first LOGGED_NAMES of each, then how many more). */
function logged(diff: SetDiff): Record<string, unknown> {
  const out: Record<string, unknown> = { unchanged: diff.unchanged.length };
  for (const kind of ['added', 'changed', 'removed'] as const) {
    const names = diff[kind];
    out[kind] =
      names.length > LOGGED_NAMES ? [...names.slice(0, LOGGED_NAMES), `… ${names.length - LOGGED_NAMES} more`] : names;
  }
  return out;
}

/**
 * A refused write: how many problems it has, and the first MAX_ISSUES of them (content-checks.ts),
 * however many a check (or a later one, outside the checker) found.
 */
export function refusal(status: 400 | 422, code: string, outcome: string, issues: Issue[]): ApiError {
  return new ApiError(status, code, `${problemCount(issues)} problem(s); ${outcome}`, capIssues(issues));
}

/** `noun`: what was refused, in the error code (`invalid_prompts`, `invalid_skills`). */
export function answer(c: Context<AppEnv>, r: WriteResult, noun = 'prompts') {
  if (r.ok) {
    if (!r.dryRun) log.info('catalog written', { generation: r.generation, ...logged(r.diff) });
    return c.json(r);
  }
  if (r.reason === 'invalid') throw refusal(422, `invalid_${noun}`, 'nothing was written', r.issues);
  if (r.reason === 'too_large') throw new ApiError(413, 'catalog_too_large', r.message);
  if (r.reason === 'not_yours') throw new ApiError(403, 'not_yours', r.message);
  throw new ApiError(404, 'not_found', r.message);
}
