/**
 * The arguments of a prompts/get (and the value of a completion request),
 * read into an own-property map and held to the configured limits before
 * anything is rendered or forwarded.
 *
 * The map has no prototype: a template or a required-argument check that
 * names `constructor`, `toString` or `__proto__` must find only what the
 * client sent, never an inherited Object member (which would render as
 * native function source, and hide a missing required argument).
 */
import type { ArgumentLimits } from '../lib/config.js';
import { LookupError } from './errors.js';
import { clip } from '../lib/clip.js';

export type { ArgumentLimits };

/** No limits: for callers that are not serving a client (tests, tools). */
export const UNLIMITED: ArgumentLimits = {
  maxArguments: Infinity,
  maxArgumentBytes: Infinity,
  maxArgumentsBytes: Infinity,
  maxRenderedBytes: Infinity,
};

/** Own-property, prototype-free argument values. */
export type Arguments = Readonly<Record<string, string>>;

/** UTF-8 length of a string without encoding it (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}

const shown = (name: string) => JSON.stringify(clip(name, 64));

/** One value against the per-value limit; returns its size. */
export function checkValue(name: string, value: string, limits: ArgumentLimits): number {
  const bytes = utf8Length(value);
  if (bytes > limits.maxArgumentBytes)
    throw new LookupError(
      'invalid_argument',
      `Argument ${shown(name)} is ${bytes} bytes; the limit is ${limits.maxArgumentBytes} bytes`,
      {
        argument: name.slice(0, 64),
        limit: limits.maxArgumentBytes,
      },
    );
  return bytes;
}

/** Validates `raw` (absent, or an object of strings within the limits) and copies it into a prototype-free map. */
export function readArguments(raw: unknown, limits: ArgumentLimits): Arguments {
  const out = Object.create(null) as Record<string, string>;
  if (raw === undefined) return out;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new LookupError('invalid_argument', 'arguments must be an object of strings');
  const entries = Object.entries(raw);
  if (entries.length > limits.maxArguments)
    throw new LookupError(
      'invalid_argument',
      `Too many arguments (${entries.length}); at most ${limits.maxArguments} arguments per request`,
      {
        limit: limits.maxArguments,
      },
    );
  let total = 0;
  for (const [k, v] of entries) {
    if (typeof v !== 'string')
      throw new LookupError('invalid_argument', `Argument ${shown(k)} must be a string`, { argument: k.slice(0, 64) });
    total += checkValue(k, v, limits);
    out[k] = v;
  }
  if (total > limits.maxArgumentsBytes)
    throw new LookupError(
      'invalid_argument',
      `Arguments total ${total} bytes; the limit is ${limits.maxArgumentsBytes} bytes for all arguments together`,
      {
        limit: limits.maxArgumentsBytes,
      },
    );
  return out;
}
