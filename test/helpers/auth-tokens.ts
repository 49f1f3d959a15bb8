/**
 * Test signing keys and tokens with jose (workerd and Node alike): a key pair
 * whose public half is a JWK set an issuer entry or a certs endpoint serves,
 * and JWTs signed with it, every claim and header under the test's control.
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface Signer {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  /** The public key as a JWK (kid, alg, use set). */
  readonly jwk: JWK;
}

export async function newSigner(kid = 'k1', alg = 'ES256'): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export const jwks = (...signers: Signer[]) => ({ keys: signers.map((s) => s.jwk) });

export interface SignOptions {
  /** Header `typ` (default `at+jwt`); null leaves it out. */
  typ?: string | null;
  /** Header `kid` (default the signer's). */
  kid?: string;
  /** Seconds from now; default 300. */
  expiresIn?: number;
  /** Seconds from now, for `nbf`. */
  notBefore?: number;
}

/** A JWT signed by `s` with `claims` (iss, aud, sub, scope... as given) and exp/iat set from now. */
export async function sign(s: Signer, claims: JWTPayload, opts: SignOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header: { alg: string; kid: string; typ?: string } = { alg: s.alg, kid: opts.kid ?? s.kid };
  if (opts.typ !== null) header.typ = opts.typ ?? 'at+jwt';
  const body: JWTPayload = { iat: now, exp: now + (opts.expiresIn ?? 300), ...claims };
  if (opts.notBefore !== undefined) body.nbf = now + opts.notBefore;
  return new SignJWT(body).setProtectedHeader(header).sign(s.privateKey);
}
