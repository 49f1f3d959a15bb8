/**
 * The one client an UpstreamObject keeps for its upstream (upstream-object.ts), and the follow loop
 * that reads its change stream through it: when a client is made, replaced and closed, and that a
 * configuration change also stops following. That is one job whatever the call (list, forward,
 * cancel), which is why it stands apart from the object's calls and its breaker.
 */
import type { UpstreamClient } from './client.js';
import { clientKey, newClient } from './client-for.js';
import { followChanges } from './follow.js';
import type { UpstreamConfig } from './schema.js';

/**
 * How long an upstream's "no change stream" stands for the client that heard it. An upstream
 * redeployed with a stream is followed within this long even if its client lives on.
 */
export const LISTEN_RECHECK_MS = 60 * 60_000;

export class ClientSlot {
  private client: UpstreamClient | undefined;
  private clientKey = '';
  /** The follow loop in progress, if any; aborting it ends the change stream and the loop at once. */
  private following: AbortController | undefined;
  /** Calls under way per client (`hold`), and the retired clients waiting for theirs to end. */
  private readonly calls = new Map<UpstreamClient, number>();
  private readonly retired = new Set<UpstreamClient>();
  /** The client whose upstream said it has no change stream, and until when that answer stands. */
  private unlistened: { client: UpstreamClient; until: number } | undefined;

  /** `waitUntil`: the object's, so that a client closed in the background is closed all the same. */
  constructor(private readonly waitUntil: (p: Promise<unknown>) => void) {}

  /** The client in use, if any. */
  get current(): UpstreamClient | undefined {
    return this.client;
  }

  /** Keeps the client only while `u`, the upstream's configuration in force, is still the one it was made for. */
  fit(u: UpstreamConfig | undefined): void {
    // A changed URL, headers or timeout means a new client, and a new follow loop once listed; gone means neither.
    if (!u || (this.client && this.clientKey !== clientKey(u))) this.drop();
  }

  /** Stops following and forgets the client (its session and streams end). */
  drop(): void {
    this.following?.abort();
    this.following = undefined;
    this.close();
  }

  /**
   * Forgets the client and closes it in the background: its session, its streams (a follow loop
   * reading one reconnects through the next client). `used`: only if that is still the client (a
   * call that failed late on a client already replaced must not close its successor).
   */
  close(used?: UpstreamClient): void {
    const old = this.client;
    if (!old || (used && used !== old)) return;
    this.client = undefined;
    this.waitUntil(old.close().catch(() => undefined));
  }

  /**
   * Counts a call on `client` until the returned release: a client retired meanwhile is closed only
   * once its calls are done.
   */
  hold(client: UpstreamClient): () => void {
    this.calls.set(client, (this.calls.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.calls.get(client) ?? 1) - 1;
      if (left > 0) return void this.calls.set(client, left);
      this.calls.delete(client);
      if (this.retired.delete(client)) this.waitUntil(client.close().catch(() => undefined));
    };
  }

  /**
   * Forgets `used` for later calls (if it is still the client) but lets the calls under way on it
   * finish before it is closed: one caller's refused request says nothing of the others', and on
   * HTTP+SSE a close ends the one stream every reply of theirs comes back on.
   */
  retire(used: UpstreamClient): void {
    if (used !== this.client) return;
    if (!this.calls.has(used)) return this.close(used);
    this.client = undefined;
    this.retired.add(used);
  }

  clientFor(u: UpstreamConfig): UpstreamClient {
    if (!this.client) this.clientKey = clientKey(u);
    this.client ??= newClient(u);
    return this.client;
  }

  /**
   * Follows the upstream's change notifications (follow.ts) until `drop` aborts it; one loop at a time.
   * Every good listing calls this (the poll, the cron): an upstream that said it has no stream is not
   * asked again on the same client for LISTEN_RECHECK_MS, so polling it costs no refused request per
   * poll. A new client (configuration changed, the old one failed) asks at once.
   */
  follow(u: UpstreamConfig, relist: () => Promise<unknown>): void {
    if (this.following) return;
    const no = this.unlistened;
    if (no && no.client === this.client && Date.now() < no.until) return;
    const ctl = (this.following = new AbortController());
    void followChanges({
      signal: ctl.signal,
      listen: async (changed, signal, opened) => {
        const client = this.client ?? this.clientFor(u);
        const outcome = await client.listen(changed, signal, opened);
        if (outcome === 'unsupported') this.unlistened = { client, until: Date.now() + LISTEN_RECHECK_MS };
        return outcome;
      },
      relist,
    }).finally(() => {
      if (this.following === ctl) this.following = undefined;
    });
  }
}
