/**
 * Modern listen streams (subscriptions/listen) for exact counting in workerd
 * tests, with a test-controlled clock.
 *
 * A listen notification carries no generation or id, so "exactly once" needs
 * a stream end that comes after everything the stream was sent. The stream's
 * own end (its close after LISTEN_MAX_MS) is that terminator: the
 * Worker is called in this isolate while the test fakes setTimeout, so the
 * lifetime elapses when the test advances the clock, never on its own.
 * settleListeners() is the barrier before it: every listener socket is closed
 * at its shard, and the test waits until every stream has reconnected, which
 * each does only after handling every frame sent before the close.
 */
import { createExecutionContext, env, runInDurableObject } from 'cloudflare:test';
import { vi } from 'vitest';
import { currentCatalog, readGeneration } from '../../src/catalog/store.js';
import worker from '../../src/index.js';
import { shardStub } from '../../src/session/fanout.js';
import { waitFor } from './feed.js';
import { modernPost } from './protocol.js';
import { catalogQuery, MCP_URL, readEvents, type EventStream } from './worker.js';

const LISTEN_MAX_MS = 60_000;
const SHARDS = 4;

export interface Listener {
  id: number | string;
  stream: EventStream;
}

/** Fakes only the timers the listen lifetime uses; keepalives and Date stay real. Undo with vi.useRealTimers(). */
export function useListenClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
}

/** Waits until the Worker in this isolate serves the catalog generation KV holds (what a client lists first). */
export async function serveCurrentCatalog(): Promise<number> {
  const target = await readGeneration(env.PROMPTS);
  let served = -1;
  await waitFor(async () => {
    const refreshing: Promise<unknown>[] = [];
    served = (await currentCatalog(catalogQuery(0, (p) => refreshing.push(p)))).generation;
    await Promise.all(refreshing);
    return served >= target;
  }, 'this isolate serves the current catalog');
  return served;
}

/**
 * Opens a listen stream for promptsListChanged and reads its acknowledgement. The client has seen
 * the current catalog first, so only changes after it are announced to this stream.
 */
export async function openListener(): Promise<Listener> {
  await serveCurrentCatalog();
  const { body, init } = modernPost('subscriptions/listen', { notifications: { promptsListChanged: true } });
  const res = await worker.fetch(
    new Request(MCP_URL, init),
    { ...env, LISTEN_MAX_MS: String(LISTEN_MAX_MS) },
    createExecutionContext(),
  );
  const stream = readEvents(res);
  const ack = await stream.nextMessage();
  if (ack.message.method !== 'notifications/subscriptions/acknowledged')
    throw new Error(`no acknowledgement: ${JSON.stringify(ack)}`);
  return { id: body.id, stream };
}

/** Listener sockets held by the registry shards; `fresh` counts only those opened since the last settle. */
export async function listenerSockets(fresh = false): Promise<number> {
  let n = 0;
  for (let i = 0; i < SHARDS; i++)
    n += await runInDurableObject(
      shardStub(env, i),
      (_o, ctx) =>
        ctx
          .getWebSockets('listener')
          .filter((ws) => !fresh || (ws.deserializeAttachment() as { settled?: boolean } | null)?.settled !== true)
          .length,
    );
  return n;
}

/** Closes every listener socket at its shard and waits until `expected` streams have reconnected. */
export async function settleListeners(expected: number): Promise<void> {
  // Streams whose clients left earlier are dropped at their next keepalive: wait for them first.
  await waitFor(
    async () => (await listenerSockets()) === expected,
    `only the ${expected} open listen streams at the shards`,
  );
  for (let i = 0; i < SHARDS; i++)
    await runInDurableObject(shardStub(env, i), (_o, ctx) => {
      for (const ws of ctx.getWebSockets('listener')) {
        ws.serializeAttachment({ settled: true });
        ws.close(1012, 'settle');
      }
    });
  await waitFor(async () => (await listenerSockets(true)) === expected, `${expected} listen streams reconnected`);
}

/** Ends every stream opened under useListenClock() the way LISTEN_MAX_MS does. */
export function endListeners(): void {
  vi.advanceTimersByTime(LISTEN_MAX_MS);
}

/** Every list_changed a listener got, until its stream closed (LISTEN_MAX_MS: no listen result, a drop). */
export async function notificationsUntilEnd(l: Listener): Promise<any[]> {
  const rest = await l.stream.rest();
  if (!(await l.stream.ended())) throw new Error('stream did not end');
  for (const m of rest)
    if (m.message.method !== 'notifications/prompts/list_changed')
      throw new Error(`unexpected message ${JSON.stringify(m)}`);
  return rest.map((m) => m.message);
}
