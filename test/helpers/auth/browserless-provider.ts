/**
 * An SDK client's OAuth state with no browser: `redirectToAuthorization` follows the
 * authorization URL with fetch (the test authorization server approves at once) and keeps
 * where it redirected, so a test can hand the code to the transport's `finishAuth`. Works for
 * the 1.x and 2.x clients alike.
 */
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

export const REDIRECT = 'http://localhost:53682/callback';

export class BrowserlessProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  redirectedTo?: URL;
  discovery?: OAuthDiscoveryState;

  /** `clientMetadataUrl`: register by Client ID Metadata Document instead of dynamic registration. */
  constructor(readonly clientMetadataUrl?: string) {}

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'promptgate tests',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'state-42';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: OAuthClientInformationMixed) {
    this.info = i;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  // SEP-2352: the callback leg is checked against the authorization server discovery found.
  saveDiscoveryState(s: OAuthDiscoveryState) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    const res = await fetch(url, { redirect: 'manual' });
    if (res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    this.redirectedTo = new URL(res.headers.get('location')!);
  }
  /** The authorization code of the last redirect, if it carried one. */
  get code(): string | undefined {
    return this.redirectedTo?.searchParams.get('code') ?? undefined;
  }
}
