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

function line(msg: string, fields: LogFields | undefined): string {
  if (fields === undefined) return JSON.stringify({ msg });
  const out: Record<string, LogValue> = { msg };
  for (const key of Object.keys(fields)) out[key] = SECRET_FIELD.test(key) ? '[redacted]' : fields[key];
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
