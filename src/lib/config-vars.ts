/**
 * The parsers of single Worker vars, and the errors a bad value raises.
 *
 * Each parser names the var in its error, so a typo in wrangler config
 * fails with the fix in the message instead of a silent fallback
 * (config.ts assembles them into the one Config).
 */

export interface OriginPattern {
  readonly scheme: string;
  readonly host: string;
  /** `null` matches any port (written `host:*`). */
  readonly port: string | null;
}

export class ConfigError extends Error {}

/** SIGNING_SECRET is not set: routes/app.ts answers 500 in the route's own error shape and logs the fix. */
export class MissingSecretError extends ConfigError {
  constructor() {
    super('Server misconfigured: signing secret missing');
  }
}

export type Vars = Partial<Record<keyof Env, unknown>>;

export function int(vars: Vars, name: keyof Env, fallback: number, min: number, max: number): number {
  const raw = vars[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${String(name)} must be an integer in [${min}, ${max}], got ${JSON.stringify(raw)}`);
  }
  return n;
}

export function parseOrigins(raw: string): OriginPattern[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(https?):\/\/([^/:]+)(?::(\d+|\*))?$/.exec(entry);
      if (!m) throw new ConfigError(`ALLOWED_ORIGINS: "${entry}" is not scheme://host[:port|:*]`);
      const scheme = m[1]!;
      const port = m[3] === '*' ? null : (m[3] ?? (scheme === 'https' ? '443' : '80'));
      return { scheme, host: m[2]!.toLowerCase(), port };
    });
}

export function separatorOf(raw: unknown): string {
  const sep = raw === undefined || raw === '' ? '.' : String(raw);
  if (!/^[._-]{1,2}$/.test(sep))
    throw new ConfigError(`UPSTREAM_SEPARATOR must be one or two of . _ -, got ${JSON.stringify(raw)}`);
  return sep;
}

/**
 * Whether `<prefix><separator>` finds its first separator right after the prefix, as routing by
 * name needs: under `__`, a prefix `gh_` would publish `gh___x`, which reads as `gh` + `_x`.
 */
export const prefixFitsSeparator = (prefix: string, separator: string): boolean =>
  `${prefix}${separator}`.indexOf(separator) === prefix.length;

export function localPrefixOf(raw: unknown, separator: string): string {
  const prefix = raw === undefined ? '' : String(raw);
  if (prefix && (!/^[A-Za-z0-9_.-]{1,32}$/.test(prefix) || !prefixFitsSeparator(prefix, separator)))
    throw new ConfigError(
      `LOCAL_PREFIX must use A-Z a-z 0-9 _ . - (at most 32), and must neither contain the separator "${separator}" nor end in a way that runs into it`,
    );
  return prefix;
}

export function onOff(vars: Vars, name: keyof Env, fallback = true): boolean {
  const raw = vars[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new ConfigError(`${String(name)} must be "on" or "off", got ${JSON.stringify(raw)}`);
}

/** A comma- or space-separated tag list; sorted, so equal lists name equal mirrors (catalog/tools.ts keys pages by it). */
export function tagsOf(raw: unknown): readonly string[] {
  if (raw === undefined || raw === '') return [];
  return [
    ...new Set(
      String(raw)
        .split(/[\s,]+/)
        .filter(Boolean),
    ),
  ].sort();
}
