/**
 * A Worker secret named by upstream configuration (`${NAME}` in a header value, an oauth
 * `clientSecret`), resolved when the list is parsed. A problem names the secret, never its value.
 * The gateway's own secrets (lib/own-secrets.ts) are refused by name, set or not.
 */

export interface SecretSource {
  /** Where names are looked up: the Worker's env. */
  readonly secrets: Record<string, unknown>;
  /** Names that are never sent upstream. */
  readonly ownSecrets: ReadonlySet<string>;
}

/** The secret's value, or '' with a problem pushed (unset, empty, or one of the gateway's own). */
export function secretValue(name: string, at: string, source: SecretSource, problems: string[]): string {
  if (source.ownSecrets.has(name)) {
    problems.push(`${at}: ${name} is one of the gateway's own secrets and is never sent upstream`);
    return '';
  }
  const value = source.secrets[name];
  if (typeof value === 'string' && value) return value;
  problems.push(`${at}: secret ${name} is not set`);
  return '';
}
