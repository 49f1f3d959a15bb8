/**
 * UpstreamObject: one Durable Object per upstream MCP server. It holds the upstream session (get
 * and completion reuse a warm connection), re-lists on a schedule and hands each listing to the
 * CatalogWriter (which publishes only real changes), and keeps a circuit breaker whose backoff
 * doubles up to five minutes. Replies cross the RPC boundary as plain results, never thrown errors;
 * faults read `fault: message` (errors.ts), the last real one in front while the breaker is open.
 *
 * After a good listing it follows the upstream's own change notifications (follow.ts) and re-lists
 * on `list_changed`, the poll staying as the fallback: one resident object per upstream, paid for
 * changes in seconds instead of a poll interval. A configuration change stops the follow loop.
 *
 * `forward` is the access boundary for upstream prompts (access.ts): a name the current
 * configuration does not publish (denied, or an aliased prompt's original name) is unknown, and
 * the upstream is never asked.
 */
import { DurableObject } from 'cloudflare:workers';
import { configOf } from '../../lib/config.js';
import { catalogWriter } from '../stubs.js';
import { Breaker } from './breaker.js';
import type { UpstreamClient } from './client.js';
import { ClientSlot } from './client-slot.js';
import { upstreamConfigs } from './config.js';
import type { UpstreamConfig } from './schema.js';
import { describeFault, UpstreamError } from './errors.js';
import {
  callFailure,
  cancelledCall,
  refusedRequest,
  renamed,
  rpcFailure,
  unknownTarget,
  upstreamNameOf,
  type ForwardMethod,
  type ForwardResult,
  type ForwardTarget,
} from './forward.js';
import { reported, type ListReport, type RefreshResult } from './report.js';
import { InFlight } from './in-flight.js';
import { SkipLog } from './skip-log.js';
import { listUpstream } from './skills.js';
import { deadline } from './deadline.js';
import { log } from '../../lib/log.js';

export class UpstreamObject extends DurableObject<Env> {
  /** The client and its follow loop (client-slot.ts). */
  private readonly slot = new ClientSlot((p) => this.ctx.waitUntil(p));
  private readonly breaker = new Breaker();
  /** Forwarded calls a downstream cancel may still reach. */
  private readonly inFlight = new InFlight();
  private readonly skipLog = new SkipLog();

  private async config(id: string, fresh = false): Promise<UpstreamConfig | undefined> {
    const u = (await upstreamConfigs(this.env, fresh)).find((x) => x.id === id && x.enabled);
    this.slot.fit(u);
    return u;
  }

  /** After a configuration change: stops everything if this upstream is gone or disabled (admin API). */
  async reconcile(id: string): Promise<void> {
    await this.config(id, true);
  }

  /**
   * A failed call on `used`: the breaker counts it (a forwarded call that timed out, started at
   * `since`, only if the upstream answered nothing meanwhile: breaker.ts), and the next call starts
   * from a new client. Calls that were in flight together on one client and fail together (an
   * upstream that stalls times them all out) are counted once: the rest found their client replaced.
   * The client is retired, not closed: the other callers' calls under way on it finish, or time out,
   * on their own (on HTTP+SSE a close ends the stream every reply comes back on).
   */
  private failed(e: unknown, used: UpstreamClient, since?: number): string {
    const fault = describeFault(e);
    if (used !== this.slot.current) return fault;
    if (since !== undefined && e instanceof UpstreamError && e.kind === 'timeout') this.breaker.timedOut(fault, since);
    else this.breaker.failed(fault);
    this.slot.retire(used);
    return fault;
  }

  /**
   * Reads the upstream's prompts without reporting them: the listing (or
   * why there is none). The upstream request starts before any storage
   * write, so the write (poll alarm) never delays it.
   */
  async list(id: string): Promise<ListReport> {
    const u = await this.config(id, true);
    if (!u) return { id, prefix: id, error: 'not configured or disabled' };
    const cfg = configOf(this.env);
    const open = this.breaker.refusal();
    const t0 = performance.now();
    let settled = 0;
    // Prompts and (when declared) skills side by side; a failure of one never costs the other (skills.ts).
    const client = this.slot.clientFor(u);
    const listing = open ? null : listUpstream(client, u).finally(() => void (settled = performance.now()));
    // The upstream operation's own duration: until the listing settled, not until this code got back to it.
    const took = () => Math.round((settled || performance.now()) - t0);
    await this.ctx.storage.put('id', id);
    await this.ctx.storage.setAlarm(Date.now() + cfg.upstreamPollMs);
    if (!listing) return { id, prefix: u.prefix, error: open!, ...(u.groups && { groups: u.groups }) };
    const { listing: got, error: e, skills } = await listing;
    if (got) {
      const report = { ...reported(u, cfg.separator, got), ...skills, ms: took() };
      this.skipLog.note(u.id, report.skipped);
      this.breaker.succeeded();
      this.slot.follow(u, () => this.refresh(u.id));
      return report;
    }
    const ms = took();
    const error = this.failed(e, client);
    log.warn('upstream list failed', { upstream: u.id, error, failures: this.breaker.failuresInARow, ms });
    return { id, prefix: u.prefix, error, ms, ...skills, ...(u.groups && { groups: u.groups }) };
  }

  /** Reads the prompts and reports them (or the failure) to the catalog writer. */
  async refresh(id: string): Promise<RefreshResult> {
    const report = await this.list(id);
    if (report.error === 'not configured or disabled') return { ok: false, prompts: 0, error: report.error };
    const { snapshot } = await catalogWriter(this.env).upstreamsReported([report]);
    const result: RefreshResult = report.prompts
      ? { ok: true, prompts: report.prompts.length }
      : { ok: false, prompts: 0, error: report.error! };
    if (report.ms !== undefined) result.ms = report.ms;
    if (snapshot) result.snapshot = snapshot;
    return result;
  }

  /**
   * prompts/get or completion/complete on the upstream, with the upstream's own prompt name; or
   * resources/read (skill files, rpc/methods/remote-skills.ts) with the upstream's own URI, which must be
   * the client's URI under this upstream's current mount (a moved or removed upstream serves nothing).
   * The caller sends only what it built (the URI or name, arguments, trace context): never a credential.
   * `call`: the caller's key for this call, by which `cancel` reaches it; registered before anything is
   * awaited, so any cancel that arrives after the call finds it (rpc/cancels.ts).
   */
  async forward(
    id: string,
    method: ForwardMethod,
    params: Record<string, unknown>,
    target: ForwardTarget,
    call?: string,
  ): Promise<ForwardResult> {
    return this.inFlight.run(call, (cancel) => this.forwardWithin(id, method, params, target, cancel));
  }

  /**
   * Cancels the forwarded call the caller registered as `call` (its downstream client cancelled it):
   * the upstream request is aborted, and a session-era upstream told with `notifications/cancelled`.
   * An unknown or finished call is ignored.
   */
  cancel(call: string): Promise<boolean> {
    return Promise.resolve(this.inFlight.cancel(call));
  }

  private async forwardWithin(
    id: string,
    method: ForwardMethod,
    params: Record<string, unknown>,
    target: ForwardTarget,
    cancel: AbortSignal | undefined,
  ): Promise<ForwardResult> {
    const u = await this.config(id);
    const original = u ? upstreamNameOf(u, configOf(this.env).separator, method, target) : null;
    if (!u || original === null) return unknownTarget(method, target.asked);
    const open = this.breaker.refusal();
    if (open)
      return { ok: false, kind: 'unavailable', code: -32603, message: `Upstream "${id}" is unavailable: ${open}` };
    const client = this.slot.clientFor(u);
    const release = this.slot.hold(client);
    const since = Date.now();
    try {
      const result = await client.request(method, renamed(method, params, original), deadline(u.timeoutMs, cancel));
      this.breaker.succeeded();
      return { ok: true, result };
    } catch (e) {
      // Given up by the client, not failed by the upstream: neither counted nor a reason to reconnect.
      const given = cancelledCall(e);
      if (given) return given;
      // Refused for what this request carried: not counted against the upstream, whose other callers' calls
      // must still go. Later calls start on a new client all the same (a refusal may also mean its session
      // is gone); the calls under way on this one finish first.
      if (refusedRequest(e)) {
        this.slot.retire(client);
        return callFailure(e, u, describeFault(e));
      }
      const rpc = rpcFailure(e);
      if (rpc) {
        this.breaker.answered();
        return rpc;
      }
      return callFailure(e, u, this.failed(e, client, since));
    } finally {
      release();
    }
  }

  override async alarm(): Promise<void> {
    const id = await this.ctx.storage.get<string>('id');
    if (id) await this.refresh(id);
  }
}
