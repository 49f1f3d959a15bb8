/**
 * The Worker's log lines: one JSON object per line, `msg` first, then the
 * caller's fields (Workers Logs and `wrangler tail` index them as they are).
 * Fields are plain JSON values the caller names one by one: a Request,
 * Headers or Response cannot be passed, and a field whose name says it holds
 * a credential is printed as "[redacted]", so no token reaches the logs.
 */

/** A loggable value: JSON data only (no functions, so no Headers, Request or Response objects). */
export type LogValue =
  string | number | boolean | null | undefined | readonly LogValue[] | { readonly [key: string]: LogValue };

export type LogFields = { readonly [key: string]: LogValue };

/** Field names that would hold a credential or a whole header set. */
const SECRET_FIELD = /authorization|cookie|headers|token|secret|password/i;

/**
 * Field names already tested against SECRET_FIELD. They are the code's own (a few dozen), and a
 * request's log line names about a dozen: remembering the answer saves as many regex runs per
 * request. Bounded all the same; past the bound a name is simply tested again.
 */
const testedNames = new Map<string, boolean>();
const MAX_TESTED_NAMES = 512;

function isSecret(key: string): boolean {
  let secret = testedNames.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    if (testedNames.size < MAX_TESTED_NAMES) testedNames.set(key, secret);
  }
  return secret;
}

function line(msg: string, fields: LogFields | undefined): string {
  if (fields === undefined) return JSON.stringify({ msg });
  const out: Record<string, LogValue> = { msg };
  for (const key of Object.keys(fields)) out[key] = isSecret(key) ? '[redacted]' : fields[key];
  return JSON.stringify(out);
}

export const log = {
  info(msg: string, fields?: LogFields): void {
    console.log(line(msg, fields));
  },
  warn(msg: string, fields?: LogFields): void {
    console.warn(line(msg, fields));
  },
  error(msg: string, fields?: LogFields): void {
    console.error(line(msg, fields));
  },
};
