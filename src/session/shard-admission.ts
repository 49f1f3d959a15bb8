/**
 * Whether a registry shard takes one more stream (stream-limits.ts): under its own cap (else 503)
 * and under the opening client's share of it (else 429). Both are counted from the shard's
 * hibernatable sockets, the client's by a tag on each of its sockets, so nothing is stored and a
 * closed socket frees its place at once. A stream's own sockets count against neither cap:
 * a session's new stream replaces its old one, and a listen stream reconnecting may find its old
 * socket still closing.
 */
import { STREAM_CAP_HEADER, STREAM_CLIENT_CAP_HEADER, STREAM_CLIENT_HEADER } from './events.js';

/** Tags are at most 256 characters; a client's key is an address, far shorter. */
const MAX_CLIENT_TAG = 200;

export class ShardAdmission {
  /** Sockets held, as last counted; undefined after waking (the count is made again when asked). */
  private held: number | undefined;

  constructor(private readonly ctx: DurableObjectState) {}

  /**
   * The refusal of a stream asking with these headers (`own`: the tag of the stream it belongs to,
   * its session or its listen id), or the tags its socket must carry besides its kind's.
   */
  admit(headers: Headers, own: string | null): Response | string[] {
    if (this.full(Number(headers.get(STREAM_CAP_HEADER)) || Infinity, own))
      return new Response('shard full', { status: 503 });
    const client = headers.get(STREAM_CLIENT_HEADER);
    if (client === null) return [];
    const tag = `client:${client}`.slice(0, MAX_CLIENT_TAG);
    const cap = Number(headers.get(STREAM_CLIENT_CAP_HEADER)) || Infinity;
    if (this.clientStreams(tag, own) >= cap) return new Response('client holds too many streams', { status: 429 });
    return [tag];
  }

  /** Counts the socket just accepted. */
  accepted(): void {
    this.held = (this.held ?? 0) + 1;
  }

  /**
   * Whether one more socket would pass `cap`. The running count only grows (a closed socket is not
   * subtracted), so it is exact or high; the sockets are counted again only when it says full, and
   * then without the asking stream's own (a session's old stream, which the new one replaces).
   */
  private full(cap: number, own: string | null): boolean {
    if ((this.held ??= this.ctx.getWebSockets().length) < cap) return false;
    this.held = this.ctx.getWebSockets().length;
    const replaced = own === null ? 0 : this.ctx.getWebSockets(own).length;
    return this.held - replaced >= cap;
  }

  /** The client's sockets here, but for those of the stream asking (`own`). */
  private clientStreams(tag: string, own: string | null): number {
    const sockets = this.ctx.getWebSockets(tag);
    if (own === null) return sockets.length;
    return sockets.filter((ws) => !this.ctx.getTags(ws).includes(own)).length;
  }
}
