/**
 * The free-form fields of one UPSTREAMS entry (parse.ts): its headers, aliases and allow/deny
 * name lists. Each reads one value and reports its own problems at its field path; none needs
 * the rest of the entry or the list, which is why they stand apart from the entry's checks.
 */
import { NAME_PATTERN } from '../validate.js';
import type { SecretSource } from './secret-ref.js';
import { secretValue } from './secret-ref.js';

/** A field's path in the list ("UPSTREAMS[1].url"), for its problems. */
export type At = (field: string) => string;

/**
 * Header names lower-cased, `${SECRET}` references resolved (never echoed in a problem); each value a
 * reference resolved to is added to `secrets`.
 */
export function headersOf(
  v: unknown,
  at: At,
  source: SecretSource,
  problems: string[],
  secrets: string[],
): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  if (v === undefined) return headers;
  if (typeof v !== 'object' || v === null) {
    problems.push(`${at('headers')}: must be an object of strings`);
    return headers;
  }
  for (const [k, value] of Object.entries(v)) {
    if (typeof value !== 'string') {
      problems.push(`${at(`headers.${k}`)}: must be a string`);
      continue;
    }
    headers[k.toLowerCase()] = value.replace(/\$\{([A-Z0-9_]+)\}/g, (_m, name: string) => {
      const secret = secretValue(name, at(`headers.${k}`), source, problems);
      if (secret && !secrets.includes(secret)) secrets.push(secret);
      return secret;
    });
  }
  return headers;
}

/** Null-prototype: a name such as `__proto__` or `constructor` is an entry like any other. */
export function aliasesOf(v: unknown, at: At, problems: string[]): Record<string, string> {
  const aliases: Record<string, string> = Object.create(null) as Record<string, string>;
  if (v === undefined) return aliases;
  if (typeof v !== 'object' || v === null) {
    problems.push(`${at('aliases')}: must map upstream names to new names`);
    return aliases;
  }
  for (const [from, to] of Object.entries(v)) {
    if (typeof to !== 'string' || !NAME_PATTERN.test(to))
      problems.push(`${at(`aliases.${from}`)}: must be a name (A-Z a-z 0-9 _ . -, not starting with a dot)`);
    else aliases[from] = to;
  }
  return aliases;
}

export function namesOf(v: unknown, at: string, problems: string[]): string[] | null {
  if (v === undefined) return null;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  problems.push(`${at}: must be a list of names (* and ? allowed)`);
  return null;
}
