/**
 * A caller's text quoted back in an error or a log line, cut to a bound: a 1 MB name must not
 * make a 1 MB error. And text a terminal will print (a client's name in a usage row), with no
 * control character left to start an escape sequence, or text that may quote a credential.
 */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Longest method name quoted back (`mcp.method.name`, span names, "Method not found"): client input. */
export const MAX_METHOD = 100;

/** C0 and C1 controls and DEL: ESC and CSI among them start a terminal's escape sequences. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The text with each control character shown as `\xNN`: printed, it is only what it says. */
export const printable = (text: string): string =>
  text.replace(CONTROL, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);

/**
 * `text` with each secret replaced by `marker`, longest first: a header value goes before the
 * words in it (`Bearer <token>`, then `<token>`). Empty secrets are skipped.
 */
export function withoutSecrets(text: string, secrets: readonly (string | undefined)[], marker: string): string {
  let out = text;
  const longestFirst = secrets.filter((s): s is string => !!s).sort((a, b) => b.length - a.length);
  for (const s of longestFirst) out = out.split(s).join(marker);
  return out;
}
