/**
 * An upstream's `oauth` entry (client-credentials grant, oauth.ts), checked
 * field by field. The client secret is named by its Worker secret and
 * resolved here. Problems name fields and secret names, never a value: a
 * secret pasted where its name belongs is not echoed back.
 */
import type { UpstreamOAuth } from './schema.js';
import { secretValue, type SecretSource } from './secret-ref.js';
import { guardUrl } from './ssrf.js';

const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,127}$/;
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
const KNOWN = new Set(['tokenUrl', 'clientId', 'clientSecret', 'scope', 'resource', 'authMethod']);

export interface OAuthParseOptions extends SecretSource {
  readonly allowHttpLoopback: boolean;
}

/** The client secret's value, or '' with a problem pushed. */
function clientSecretOf(name: unknown, at: string, source: SecretSource, problems: string[]): string {
  if (typeof name !== 'string' || !SECRET_NAME.test(name)) {
    problems.push(`${at}: required, the NAME of a Worker secret (A-Z 0-9 _), not the secret`);
    return '';
  }
  return secretValue(name, at, source, problems);
}

/** The entry, or undefined with every problem pushed onto `problems`. */
export function parseOAuth(
  v: unknown,
  at: (f: string) => string,
  opts: OAuthParseOptions,
  problems: string[],
): UpstreamOAuth | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    problems.push(`${at('oauth')}: must be an object with tokenUrl, clientId and clientSecret`);
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const before = problems.length;
  let tokenUrl: URL | undefined;
  try {
    tokenUrl = new URL(String(o.tokenUrl));
    problems.push(...guardUrl(tokenUrl, at('oauth.tokenUrl'), opts.allowHttpLoopback));
  } catch {
    problems.push(`${at('oauth.tokenUrl')}: required, a URL`);
  }
  if (typeof o.clientId !== 'string' || !o.clientId) problems.push(`${at('oauth.clientId')}: required, a string`);
  const clientSecret = clientSecretOf(o.clientSecret, at('oauth.clientSecret'), opts, problems);
  if (o.scope !== undefined && typeof o.scope !== 'string') problems.push(`${at('oauth.scope')}: must be a string`);
  if (o.resource !== undefined && (typeof o.resource !== 'string' || !URL.canParse(o.resource)))
    problems.push(`${at('oauth.resource')}: must be an absolute URL`);
  const authMethod = o.authMethod ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(authMethod as (typeof AUTH_METHODS)[number]))
    problems.push(`${at('oauth.authMethod')}: must be ${AUTH_METHODS.join(' or ')}`);
  for (const k of Object.keys(o)) if (!KNOWN.has(k)) problems.push(`${at(`oauth.${k}`)}: unknown field`);
  if (problems.length > before || !tokenUrl) return undefined;
  return {
    tokenUrl,
    clientId: o.clientId as string,
    clientSecret,
    authMethod: authMethod as UpstreamOAuth['authMethod'],
    ...(typeof o.scope === 'string' && o.scope && { scope: o.scope }),
    ...(typeof o.resource === 'string' && { resource: o.resource }),
  };
}
