/**
 * Signing keys for the test authorization server and the Access stand-in: a
 * ring whose newest key is current (rotation), a JWK set of the listed keys,
 * and one unlisted key, so tests can mint tokens a verifier must refuse (bad
 * signature, unknown kid) with the real jose code the verifiers use.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JSONWebKeySet, type JWTPayload } from 'jose';

export type Alg = 'RS256' | 'ES256';

interface Key {
  kid: string;
  alg: Alg;
  privateKey: CryptoKey;
  jwk: Record<string, unknown>;
}

async function makeKey(alg: Alg, kid = randomUUID()): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, jwk };
}

export interface SignOptions {
  /** Header `typ` (default `at+jwt`; null leaves it out). */
  typ?: string | null;
  /** Header `kid` (default: the signing key's). */
  kid?: string;
  /** `unlisted`: signed by a key the JWK set does not carry. */
  signWith?: 'current' | 'unlisted';
}

export class KeyRing {
  private readonly keys: Key[] = [];
  private unlisted!: Key;

  private constructor(private readonly alg: Alg) {}

  static async create(alg: Alg = 'RS256'): Promise<KeyRing> {
    const ring = new KeyRing(alg);
    ring.keys.push(await makeKey(alg));
    ring.unlisted = await makeKey(alg);
    return ring;
  }

  get currentKid(): string {
    return this.keys.at(-1)!.kid;
  }

  /** Adds a key and makes it current; older keys stay listed (tokens they signed stay valid). */
  async addKey(alg: Alg = this.alg): Promise<string> {
    const key = await makeKey(alg);
    this.keys.push(key);
    return key.kid;
  }

  /** Stops listing a key (tokens it signed now have an unknown kid). */
  removeKey(kid: string): void {
    const i = this.keys.findIndex((k) => k.kid === kid);
    if (i >= 0 && this.keys.length > 1) this.keys.splice(i, 1);
  }

  jwks(): JSONWebKeySet {
    return { keys: this.keys.map((k) => k.jwk) } as unknown as JSONWebKeySet;
  }

  async sign(claims: JWTPayload, o: SignOptions = {}): Promise<string> {
    const key = o.signWith === 'unlisted' ? this.unlisted : this.keys.at(-1)!;
    const header: Record<string, unknown> = {
      alg: key.alg,
      kid: o.kid ?? (o.signWith === 'unlisted' ? this.currentKid : key.kid),
    };
    if (o.typ !== null) header.typ = o.typ ?? 'at+jwt';
    return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
  }

  /** The key a kid names, for the server's own introspection of JWTs. */
  publicJwk(kid: string): Record<string, unknown> | undefined {
    return this.keys.find((k) => k.kid === kid)?.jwk;
  }
}
