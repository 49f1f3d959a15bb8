/**
 * The modern listen stream (`subscriptions/listen`, 2026-07-28).
 *
 * First frame: `notifications/subscriptions/acknowledged` with the honored
 * subset; then, per catalog change, the list_changed notifications it means
 * among the honored ones (changes.ts: prompts, the tools mirror, skill
 * resources), each tagged with the subscription id (the listen request's id).
 * After LISTEN_MAX_MS, or once the caller's credential is no longer valid, the
 * stream closes without the listen result: the spec calls that an unexpected
 * disconnect, after which the client may listen again, where the result would
 * tell it the subscription ended for good (the SDK reports it as `graceful`,
 * and its guide re-listens only on `remote`). The result ends only a listen
 * with nothing to honor. There is no resume in this revision, so nothing is stored
 * per listener: the Worker holds a hibernatable socket to a registry shard
 * (the same objects that fan changes out to legacy sessions), and a shard
 * with only idle listeners sleeps.
 *
 * The stream starts from the generation of the catalog this isolate serves
 * (what the client listed), so a fan-out still under way for that
 * generation is not announced again. A dropped socket is reconnected; the
 * shard's first frame names the last generation it announced, so a change
 * missed during the gap is still sent.
 */
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { bridge } from './bridge.js';
import { watchedBy, type StreamHooks } from './watch.js';
import { upgrade } from './sockets.js';
import { changedMethods, type Announced } from './changes.js';
import { frameGeneration, STREAM_LISTEN_HEADER, type ShardFrame } from './events.js';
import { limitHeaders, type StreamLimits } from './stream-limits.js';
import { shardStub } from './fanout.js';
import { SSE_HEADERS, sseEvent } from './sse.js';

export interface ListenOptions extends StreamHooks {
  env: Env;
  listenId: RequestId;
  /** The requested notification types this server will send (the ack's `notifications`). */
  honored: Record<string, boolean>;
  subscriptionIdKey: string;
  /** The serialized listen result: the end of a listen with nothing to honor, which is final. */
  endResult: string;
  keepaliveMs: number;
  maxMs: number;
  shards: number;
  /** What the shard admits (503 when full, 429 past the client's share): stream-limits.ts. */
  limits: StreamLimits;
  /** The catalog generation the client can have seen when it listened: only newer ones are announced. */
  since: number;
  /** Asked at each keepalive; false closes the stream (the credential expired or was revoked) as the lifetime does. */
  stillValid?: () => boolean | Promise<boolean>;
}

const message = (data: string) => sseEvent({ event: 'message', data });

export async function openListenStream(o: ListenOptions): Promise<Response> {
  const tag = { [o.subscriptionIdKey]: o.listenId };
  const ack = message(
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: o.honored, _meta: tag },
    }),
  );
  const announced: Announced = {
    prompts: o.honored.promptsListChanged === true,
    tools: o.honored.toolsListChanged === true,
    resources: o.honored.resourcesListChanged === true,
  };
  if (!announced.prompts && !announced.tools && !announced.resources) {
    // Nothing this server could ever send: acknowledge and end at once rather than hold an empty stream.
    return new Response(new Blob([ack, message(o.endResult)]).stream(), { headers: SSE_HEADERS });
  }
  const frames = new Map<string, Uint8Array>();
  const changed = (method: string): Uint8Array => {
    let f = frames.get(method);
    if (!f) frames.set(method, (f = message(JSON.stringify({ jsonrpc: '2.0', method, params: { _meta: tag } }))));
    return f;
  };
  const shard = Math.floor(Math.random() * o.shards);
  // The stream's own id: a reconnect while its old socket is still closing is not counted against its client.
  const own = { ...limitHeaders(o.limits), [STREAM_LISTEN_HEADER]: crypto.randomUUID() };
  const connect = () => upgrade(shardStub(o.env, shard), own);
  // Subscribed before the ack goes out, so a change right after the ack is never missed.
  const first = await connect();
  if (typeof first === 'number') throw new Error(`registry shard answered ${first} to a listen upgrade`);
  let generation = o.since;
  return bridge<ShardFrame>(
    first,
    {
      connect,
      keepaliveMs: o.keepaliveMs,
      maxMs: o.maxMs,
      ...(o.stillValid && { stillValid: o.stillValid }),
      ...watchedBy(o, () => generation),
      before: (frame) => {
        if (frame.t === 'end') return undefined;
        const g = frameGeneration(frame);
        return g > generation ? o.catchUp?.(g) : undefined;
      },
      onFrame(frame, client) {
        // One rule for events and for `open` (first or after a reconnect): a generation newer than
        // any the client can have seen is a change it must hear about, once. A fan-out still under
        // way for an older change (the catalog the client listed) is therefore not announced.
        // A change missed while reconnecting is not known by its lists: every honored one is announced.
        if (frame.t === 'end') return client.end();
        const g = frameGeneration(frame);
        if (g > generation) {
          generation = g;
          for (const m of changedMethods(frame.t === 'open' ? undefined : frame.event, announced))
            client.write(changed(m));
        }
      },
    },
    [ack],
  );
}
