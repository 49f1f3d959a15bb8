/**
 * What a new API key may say, checked before the writer stores it: a name,
 * groups and scopes in the same alphabet as prompt groups and OAuth scopes,
 * an optional admin flag and an expiry in the future. Pure, so the writer
 * object and the admin route give the same answers.
 */
import type { Issue } from './types.js';
import { GROUP_PATTERN } from './groups.js';
import { Checker } from './content-checks.js';

/** Key names: a label for people, in the group alphabet. */
export const KEY_NAME_PATTERN = GROUP_PATTERN;
/** An OAuth scope token (RFC 6749 section 3.3), at most 128 characters. */
const SCOPE_PATTERN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;
const MAX_GROUPS = 64;
const MAX_SCOPES = 32;
const MAX_EXPIRY_DAYS = 3650;
const DAY_MS = 86_400_000;

/** A key request that passed every check. */
export interface KeyInput {
  name: string;
  groups: string[];
  /** Undefined: the read scope (resolved when the key is used, so it follows OAUTH_SCOPE_READ). */
  scopes: string[] | undefined;
  admin: boolean;
  expiresAt: number | undefined;
}

function list(v: unknown, field: string, pattern: RegExp, max: number, c: Checker): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    c.fail(field, 'must be a list of strings');
    return [];
  }
  if (v.length > max) c.fail(field, `at most ${max} entries`);
  v.forEach((s, i) => {
    if (typeof s !== 'string' || !pattern.test(s)) c.fail(`${field}[${i}]`, `must match ${String(pattern)}`);
  });
  // Refused already, so never used: a million entries are not worth sorting.
  if (v.length > max) return v as string[];
  return [...new Set(v as string[])].sort();
}

function expiryOf(body: Record<string, unknown>, now: number, c: Checker): number | undefined {
  const { expiresInDays: days, expiresAt: at } = body;
  if (days !== undefined && at !== undefined) {
    c.fail('expiresAt', 'give expiresInDays or expiresAt, not both');
    return undefined;
  }
  if (days !== undefined) {
    if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0 || days > MAX_EXPIRY_DAYS)
      c.fail('expiresInDays', `must be a number of days in (0, ${MAX_EXPIRY_DAYS}]`);
    else return now + Math.round(days * DAY_MS);
  }
  if (at !== undefined) {
    const t = typeof at === 'string' ? Date.parse(at) : NaN;
    if (!Number.isFinite(t)) c.fail('expiresAt', 'must be an ISO 8601 date-time');
    else if (t <= now) c.fail('expiresAt', 'is in the past');
    else if (t > now + MAX_EXPIRY_DAYS * DAY_MS) c.fail('expiresAt', `at most ${MAX_EXPIRY_DAYS} days ahead`);
    else return t;
  }
  return undefined;
}

const KNOWN = new Set(['name', 'groups', 'scopes', 'admin', 'expiresInDays', 'expiresAt']);

/** The checked request, or every problem with it. */
export function parseKeyInput(
  body: unknown,
  now: number,
): { ok: true; input: KeyInput } | { ok: false; issues: Issue[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: false, issues: [{ path: '', message: 'must be an object' }] };
  const b = body as Record<string, unknown>;
  const c = new Checker();
  for (const k of Object.keys(b)) if (!KNOWN.has(k)) c.fail(k, 'is not a key field');
  if (typeof b.name !== 'string' || !KEY_NAME_PATTERN.test(b.name))
    c.fail('name', `is required and must match ${String(KEY_NAME_PATTERN)}`);
  const groups = list(b.groups, 'groups', GROUP_PATTERN, MAX_GROUPS, c);
  const scopes = b.scopes === undefined ? undefined : list(b.scopes, 'scopes', SCOPE_PATTERN, MAX_SCOPES, c);
  if (scopes?.length === 0) c.fail('scopes', 'must name at least one scope when given');
  if (b.admin !== undefined && typeof b.admin !== 'boolean') c.fail('admin', 'must be a boolean');
  const expiresAt = expiryOf(b, now, c);
  if (c.count) return { ok: false, issues: c.issues };
  return { ok: true, input: { name: b.name as string, groups, scopes, admin: b.admin === true, expiresAt } };
}
