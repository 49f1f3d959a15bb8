/**
 * Verifying a signed token with jose: signature (asymmetric algorithms only,
 * so a public key can never be used as an HMAC secret), `typ`, `iss`,
 * `aud` and `exp`/`nbf` with a minute of clock skew. Failures become
 * AuthErrors: a bad token is 401 invalid_token; an unreachable key server
 * is 503, so a client does not throw away a token that may be good.
 */
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { AuthError } from './errors.js';

export const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
export const CLOCK_SKEW_S = 60;

export interface Expectation {
  readonly issuer: string;
  readonly audience: string;
  readonly typ?: string | undefined;
}

/**
 * Three base64url parts, the first a JWS protected header (a JSON object naming an `alg`): a JWT,
 * verified and never introspected. Other tokens with two dots (PASETO's `v4.local.…`) are opaque.
 */
export function looksLikeJwt(token: string): boolean {
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) return false;
  try {
    return decodeProtectedHeader(token).alg !== undefined;
  } catch {
    return false;
  }
}

/** Why a token failed, for the error_description and the log (never the token itself). */
function reason(e: unknown): string {
  if (e instanceof errors.JWTExpired) return 'The token has expired';
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === 'nbf') return 'The token is not valid yet';
    if (e.claim === 'aud') return 'The token was not issued for this resource';
    if (e.claim === 'iss') return 'The token was not issued by a trusted issuer';
    if (e.claim === 'typ') return 'The token has the wrong type';
    return `The token's ${e.claim} claim is invalid`;
  }
  if (e instanceof errors.JWKSNoMatchingKey) return 'The token was signed with an unknown key';
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'The token signature is invalid';
  if (e instanceof errors.JOSEAlgNotAllowed) return 'The token is signed with an algorithm that is not allowed';
  return 'The token is malformed';
}

/** A failure of the key server rather than of the token. */
export function keyServerFailed(e: unknown): boolean {
  if (!(e instanceof errors.JOSEError)) return true;
  return e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid || e.constructor === errors.JOSEError;
}

/** The verified claims, or an AuthError (`challengeFor` builds the WWW-Authenticate value of a 401). */
export async function verifyJwt(
  token: string,
  keys: JWTVerifyGetKey,
  expect: Expectation,
  challengeFor: (description: string) => string,
): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, keys, {
      algorithms: ASYMMETRIC,
      issuer: expect.issuer,
      audience: expect.audience,
      clockTolerance: CLOCK_SKEW_S,
      requiredClaims: ['exp'],
      ...(expect.typ ? { typ: expect.typ } : {}),
    });
    return payload;
  } catch (e) {
    if (keyServerFailed(e))
      throw new AuthError(503, undefined, 'The authorization server could not be reached; retry later', undefined);
    const why = reason(e);
    throw new AuthError(401, 'invalid_token', why, challengeFor(why));
  }
}
