/**
 * Live updates through real Durable Objects: GET streams, the publish path,
 * fan-out through registry shards, replay with Last-Event-ID, keepalives,
 * and streams ending with their session.
 */
import { createExecutionContext, env, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { feedStub, flushFeed, holdFeed, waitFor } from '../helpers/feed.js';
import { hold } from '../helpers/hold.js';
import { sessionObject, streamsAtShard } from '../helpers/tally.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import worker from '../../src/index.js';
import { expectError, MCP_URL, openSession, openStream, publish, readEvents, type Session } from '../helpers/worker.js';
import { shardCount, shardIndex, shardStub } from '../../src/session/fanout.js';
import { openLegacyStream, type StreamOptions } from '../../src/session/stream.js';
import { openListenStream } from '../../src/session/listen.js';
import { REPLAY_MAX_EVENTS } from '../../src/session/replay-log.js';
import { mintSessionId, readSessionToken } from '../../src/session/token.js';
import { SELF } from 'cloudflare:test';

const SECRET = 'test-signing-secret';

/** Ends a session: its stream closes after everything already sent on it (the terminator for exact counts). */
const endSession = (s: Pick<Session, 'id'>) =>
  SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': s.id } });

/** An event id's generation: ids are `<stream key>.<generation>`. */
const generationOf = (id: string) => Number(id.slice(id.lastIndexOf('.') + 1));

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  // Announced now, so no test's stream sees this change arrive late.
  await flushFeed();
});

const LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' };
/** A prompts change at `generation`, delivered to a shard whose last was the one before it. */
const changeAt = (shard: ReturnType<typeof shardStub>) => (generation: number) =>
  shard.deliver({ kind: 'prompts_list_changed', generation }, generation - 1);

/** A legacy stream opened at its shard directly, as the Worker would: prompts only, no priming, unless said. */
const directStream = (o: Pick<StreamOptions, 'sessionId' | 'shard'> & Partial<StreamOptions>) =>
  openLegacyStream({
    env,
    key: 'k',
    since: undefined,
    priming: false,
    keepaliveMs: 60_000,
    retryMs: 1_000,
    limits: { maxStreams: 10_000, client: 'test', maxClientStreams: 10_000 },
    tools: false,
    resources: false,
    ...o,
  });

describe('GET stream', () => {
  it('starts with retry and a priming event for 2025-11-25 clients', async () => {
    const s = await openSession('2025-11-25');
    const stream = await openStream(s);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    expect((await stream.next()).retry).toBe(1500);
    const priming = await stream.next();
    // The stream's position: the catalog generation last announced, under this stream's key.
    expect(priming.id).toMatch(/^[A-Za-z0-9_-]+\.\d+$/);
    expect(generationOf(priming.id!)).toBe((await feedStub().status()).published);
    expect(priming.data).toBe('');
    await stream.close();
  });
  it('sends no priming event to older clients', async () => {
    const s = await openSession('2025-06-18');
    const stream = await openStream(s);
    expect((await stream.next()).retry).toBe(1500);
    // Everything up to the first keepalive: a late notification may pass, a priming event may not.
    for (let f = await stream.next(); f.comment !== 'keepalive'; f = await stream.next()) expect(f.data).not.toBe('');
    await stream.close();
  });
  it('sends a keepalive comment every SSE_KEEPALIVE_MS', async () => {
    const s = await openSession();
    // The Worker's interval runs on the test's clock: one keepalive per interval, however slow the machine.
    // Called in this isolate (not through SELF) so that the faked timers are the ones the Worker uses.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const headers = { accept: 'text/event-stream', 'mcp-session-id': s.id, 'mcp-protocol-version': s.version };
      const stream = readEvents(await worker.fetch(new Request(MCP_URL, { headers }), env, createExecutionContext()));
      await stream.next();
      await stream.next();
      for (let i = 0; i < 3; i++) {
        vi.advanceTimersByTime(300);
        expect((await stream.next()).comment).toBe('keepalive');
      }
      await stream.close();
    } finally {
      vi.useRealTimers();
    }
  });
  it('needs Accept: text/event-stream (406) and a live session (400/404)', async () => {
    const s = await openSession();
    await expectError(
      await SELF.fetch(MCP_URL, { headers: { accept: 'application/json', 'mcp-session-id': s.id } }),
      406,
      -32000,
    );
    await expectError(await SELF.fetch(MCP_URL, { headers: { accept: 'text/event-stream' } }), 400, -32000);
    await expectError(
      await SELF.fetch(MCP_URL, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope' } }),
      404,
      -32001,
    );
  });
});

describe('catalog changes', () => {
  it('GET /status reports the change feed: a held change is pending, then published', async () => {
    const feedOf = async () => (await (await SELF.fetch('https://gateway.test/status')).json<{ feed: unknown }>()).feed;
    await holdFeed();
    const before = (await feedOf()) as { published: number; pending: number | null };
    expect(before.pending).toBeNull();
    const g = await publish(FIXTURE_PROMPTS);
    expect(await feedOf()).toEqual({ published: before.published, pending: g });
    await flushFeed();
    expect(await feedOf()).toEqual({ published: g, pending: null });
  });
  it('reach every session with a stream, once each', async () => {
    const a = await openSession();
    const b = await openSession('2025-03-26');
    const sa = await openStream(a);
    const sb = await openStream(b);
    await sa.next();
    await sa.next();
    const g = await publish(FIXTURE_PROMPTS);
    // Through the real coalescing window (the feed's own alarm): wait for the event, however long it takes.
    const ea = await sa.nextMessage();
    const eb = await sb.nextMessage();
    expect(ea.message).toEqual(LIST_CHANGED);
    expect(eb.message).toEqual(LIST_CHANGED);
    expect(generationOf(ea.id!)).toBe(g);
    expect(generationOf(eb.id!)).toBe(g);
    // Exactly once: every fan-out done, then each session ends; its stream closes after all it was sent.
    await flushFeed();
    for (const s of [a, b]) expect((await endSession(s)).status).toBe(200);
    expect(await sa.rest()).toEqual([]);
    expect(await sb.rest()).toEqual([]);
  });
  it('coalesces a burst of writes into one notification', async () => {
    const s = await openSession();
    const stream = await openStream(s);
    await stream.next();
    const priming = await stream.next();
    // All 20 writes inside one coalescing window, by construction: the window closes when the test says.
    await holdFeed();
    const generations = await Promise.all(Array.from({ length: 20 }, () => publish(FIXTURE_PROMPTS)));
    expect(new Set(generations).size).toBe(20);
    await flushFeed();
    const only = await stream.nextMessage();
    // One notification, for the newest generation of the burst; nothing else before the stream ends.
    expect(only).toEqual({ id: priming.id!.replace(/\.\d+$/, `.${Math.max(...generations)}`), message: LIST_CHANGED });
    await endSession(s);
    expect(await stream.rest()).toEqual([]);
  });
  it('replays what a dropped connection missed, with Last-Event-ID', async () => {
    const s = await openSession();
    const first = await openStream(s);
    await first.next();
    const priming = await first.next();
    await first.close();
    const g = await publish(FIXTURE_PROMPTS);
    // Announced while no stream was attached: the shards logged it, and nothing was written for the session.
    await flushFeed();
    const resumed = await openStream(s, priming.id);
    expect((await resumed.next()).retry).toBeDefined();
    // No priming event on a resume: it would repeat the id the client resumed from (ids are unique in a session).
    const replayed = await resumed.next();
    expect(replayed.id).toBe(priming.id!.replace(/\.\d+$/, `.${g}`));
    expect(JSON.parse(replayed.data!)).toEqual(LIST_CHANGED);
    await resumed.close();
  });
  it('a resume from before what the log still holds announces every list: a trimmed change is not lost', async () => {
    // A shard of its own (the fan-out uses shards 0-3), so its made-up generations touch no other test.
    const shard = shardStub(env, 99);
    const g0 = 1_000_000;
    const change = (generation: number, list: 'prompts' | 'skills') =>
      shard.deliver({ kind: 'prompts_list_changed', generation, lists: [list] }, generation - 1);
    await change(g0, 'prompts');
    await change(g0 + 1, 'skills');
    for (let g = g0 + 2; g <= g0 + REPLAY_MAX_EVENTS + 1; g++) await change(g, 'prompts');
    // The skills change has been trimmed from the log; a stream that last delivered g0 resumes.
    const res = await directStream({ sessionId: 'trimmed-resume', shard: 99, since: g0, resources: true });
    const stream = readEvents(res!);
    const first = await stream.nextMessage();
    const second = await stream.nextMessage();
    expect([first.message.method, second.message.method]).toEqual([
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
    // One event at the newest generation, its id on the last frame.
    expect(second.id).toBe(`k.${g0 + REPLAY_MAX_EVENTS + 1}`);
    await stream.close();
  });
  it('a stream that moved to a shard added after its position is told every list: changes before the shard joined are not lost', async () => {
    // Shard 97 joins (a larger REGISTRY_SHARDS) when the feed had announced g0 + 3; its first change is g0 + 4.
    const shard = shardStub(env, 97);
    const g0 = 3_000_000;
    await shard.deliver({ kind: 'prompts_list_changed', generation: g0 + 4, lists: ['prompts'] }, g0 + 3);
    // The stream last delivered g0 + 1 at its old shard: g0 + 2 and g0 + 3 (a skills change among them) it never saw.
    const moved = readEvents((await directStream({ sessionId: 'moved', shard: 97, since: g0 + 1, resources: true }))!);
    expect((await moved.nextMessage()).message.method).toBe('notifications/prompts/list_changed');
    expect(await moved.nextMessage()).toEqual({
      id: `k.${g0 + 4}`,
      message: { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
    });
    await moved.close();
    // One that last delivered g0 + 3, the floor itself, missed only what the log holds.
    const current = readEvents((await directStream({ sessionId: 'current', shard: 97, since: g0 + 3 }))!);
    expect(await current.nextMessage()).toEqual({ id: `k.${g0 + 4}`, message: LIST_CHANGED });
    await current.close();
  });
  it('a stream that moved to a shard that never announced a change is told every list the feed announced since', async () => {
    const { published } = await feedStub().status();
    expect(published).toBeGreaterThan(0);
    const shard = shardStub(env, 96);
    const res = await directStream({ sessionId: 'moved-early', shard: 96, since: published - 1, resources: true });
    const moved = readEvents(res!);
    expect((await moved.nextMessage()).message.method).toBe('notifications/prompts/list_changed');
    expect(await moved.nextMessage()).toEqual({
      id: `k.${published}`,
      message: { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
    });
    // Then the shard's own first change, as usual.
    await changeAt(shard)(published + 1);
    expect(await moved.nextMessage()).toEqual({ id: `k.${published + 1}`, message: LIST_CHANGED });
    await moved.close();
    // A stream already at what the feed announced is told nothing more.
    const level = readEvents((await directStream({ sessionId: 'level', shard: 96, since: published + 1 }))!);
    await shard.deliver({ kind: 'prompts_list_changed', generation: published + 2 }, published + 1);
    expect(await level.nextMessage()).toEqual({ id: `k.${published + 2}`, message: LIST_CHANGED });
    await level.close();
  });
  it('a session ended while its stream waits on the feed is refused, not attached', async () => {
    // A shard that never announced a change asks the feed before it attaches a resuming stream.
    const shard = shardStub(env, 95);
    const feed = hold(feedStub());
    const opening = directStream({ sessionId: 'ended-while-waiting', shard: 95, since: 1 });
    await new Promise((r) => setTimeout(r, 50));
    // DELETE (or expiry) reaches the shard meanwhile.
    await shard.endSession('ended-while-waiting', Date.now() + 60_000);
    await feed.release();
    expect(await opening).toBeNull();
    expect((await shard.counts()).sessions).toBe(0);
  });
  it('a stream replaced while a frame waits on its catch-up ends; it does not reconnect and end its replacement', async () => {
    const shard = shardStub(env, 94);
    const g0 = 4_000_000;
    const change = changeAt(shard);
    await change(g0);
    let release!: () => void;
    const caughtUp = new Promise<void>((r) => (release = r));
    const first = readEvents(
      (await directStream({ sessionId: 'replaced-waiting', shard: 94, since: g0, catchUp: () => caughtUp }))!,
    );
    // A change the first stream's Worker is still catching up with when a second stream replaces it.
    await change(g0 + 1);
    await new Promise((r) => setTimeout(r, 50));
    const second = readEvents((await directStream({ sessionId: 'replaced-waiting', shard: 94, since: g0 + 1 }))!);
    await new Promise((r) => setTimeout(r, 50));
    release();
    // The first stream delivers what it had, then ends as replaced.
    expect(await first.nextMessage()).toEqual({ id: `k.${g0 + 1}`, message: LIST_CHANGED });
    expect(await first.rest()).toEqual([]);
    // The second is still the session's stream, and carries the next change.
    expect((await shard.counts()).sessions).toBe(1);
    await change(g0 + 2);
    expect(await second.nextMessage()).toEqual({ id: `k.${g0 + 2}`, message: LIST_CHANGED });
    await second.close();
  });
  it("a resume from a generation its shard never announced goes on from the shard's: later changes are not silenced", async () => {
    const shard = shardStub(env, 93);
    const g0 = 5_000_000;
    const change = changeAt(shard);
    await change(g0);
    // A Last-Event-ID past anything issued (made up, or from before the generations started over).
    const ahead = readEvents((await directStream({ sessionId: 'resumed-ahead', shard: 93, since: g0 + 1_000 }))!);
    await change(g0 + 1);
    expect(await ahead.nextMessage()).toEqual({ id: `k.${g0 + 1}`, message: LIST_CHANGED });
    await ahead.close();
  });
  it("a resume past anything issued, at a shard that never announced a change, goes on from the feed's position", async () => {
    const { published } = await feedStub().status();
    expect(published).toBeGreaterThan(0);
    // A shard of its own: shard 91 is the never-announced one of the test of new streams below.
    const shard = shardStub(env, 89);
    const ahead = readEvents(
      (await directStream({ sessionId: 'ahead-fresh-shard', shard: 89, since: published + 1_000_000 }))!,
    );
    await changeAt(shard)(published + 1);
    expect(await ahead.nextMessage()).toEqual({ id: `k.${published + 1}`, message: LIST_CHANGED });
    await ahead.close();
  });
  it('a listen stream at a shard that never announced a change hears of what the feed published after its catalog', async () => {
    const { published } = await feedStub().status();
    // Shard 90 of 91 (none of the other tests' shards): the one a random draw this high picks.
    vi.spyOn(Math, 'random').mockReturnValue(0.995);
    let res: Response;
    try {
      res = await openListenStream({
        env,
        listenId: 'fresh-shard',
        honored: { promptsListChanged: true },
        subscriptionIdKey: 'io.modelcontextprotocol/subscriptionId',
        endResult: '{}',
        keepaliveMs: 60_000,
        maxMs: 60_000,
        shards: 91,
        limits: { maxStreams: 10_000, client: 'test', maxClientStreams: 10_000 },
        // A lagging isolate's catalog: older than what the feed has published.
        since: published - 1,
      });
    } finally {
      vi.restoreAllMocks();
    }
    const stream = readEvents(res);
    expect((await stream.nextMessage()).message.method).toBe('notifications/subscriptions/acknowledged');
    expect((await stream.nextMessage()).message.method).toBe('notifications/prompts/list_changed');
    await stream.close();
  });
  it('a stream opens at a shard that never announced a change even when the feed does not answer', async () => {
    const shard = shardStub(env, 92);
    const feed = hold(feedStub(), 'feed reset');
    const opening = directStream({ sessionId: 'feed-down', shard: 92, since: 1 });
    await new Promise((r) => setTimeout(r, 50));
    await feed.release();
    const stream = readEvents((await opening)!);
    await shard.deliver({ kind: 'prompts_list_changed', generation: 6_000_000 }, 5_999_999);
    expect(await stream.nextMessage()).toEqual({ id: 'k.6000000', message: LIST_CHANGED });
    await stream.close();
  });
  it('a stream opens at a shard that never announced a change even when the feed hangs', async () => {
    // A shard no other test here uses: it must never have announced a change.
    const shard = shardStub(env, 88);
    const feed = hold(feedStub());
    try {
      // Opened while the feed is still held: its position is waited for a bounded time, not forever.
      const stream = readEvents((await directStream({ sessionId: 'feed-hung', shard: 88, since: 1 }))!);
      await shard.deliver({ kind: 'prompts_list_changed', generation: 6_100_000 }, 6_099_999);
      expect(await stream.nextMessage()).toEqual({ id: 'k.6100000', message: LIST_CHANGED });
      await stream.close();
    } finally {
      await feed.release();
    }
  });
  it('a new stream starts no later than the catalog its list may be of: a change announced in between is announced on it', async () => {
    // A shard of its own (the fan-out uses shards 0-3), so its made-up generations touch no other test.
    const shard = shardStub(env, 98);
    const g0 = 2_000_000;
    const change = changeAt(shard);
    await change(g0);
    await change(g0 + 1);
    const open = (sessionId: string, listedAt: number) =>
      directStream({ sessionId, shard: 98, listedAt, priming: true }).then((r) => readEvents(r!));
    // The client listed g0 here; the shard had announced g0 + 1 by the time its stream opened.
    const behind = await open('listed-behind', g0);
    expect((await behind.next()).retry).toBeDefined();
    expect((await behind.next()).id).toBe(`k.${g0}`);
    expect(await behind.nextMessage()).toEqual({ id: `k.${g0 + 1}`, message: LIST_CHANGED });
    await behind.close();
    // An isolate ahead of the shard: the stream starts at what the shard announced, and misses nothing after it.
    const ahead = await open('listed-ahead', g0 + 5);
    expect((await ahead.next()).retry).toBeDefined();
    expect((await ahead.next()).id).toBe(`k.${g0 + 1}`);
    await change(g0 + 2);
    expect(await ahead.nextMessage()).toEqual({ id: `k.${g0 + 2}`, message: LIST_CHANGED });
    await ahead.close();
  });
  it('a new stream at a shard that never announced a change starts at its list’s catalog: nothing is told twice', async () => {
    const { published } = await feedStub().status();
    const shard = shardStub(env, 91);
    const fresh = readEvents(
      (await directStream({ sessionId: 'fresh-shard', shard: 91, listedAt: published, priming: true }))!,
    );
    expect((await fresh.next()).retry).toBeDefined();
    // The list's position, not the shard's 0: resumed or checked for lag from 0, it would be told the list again.
    expect((await fresh.next()).id).toBe(`k.${published}`);
    await changeAt(shard)(published + 1);
    expect(await fresh.nextMessage()).toEqual({ id: `k.${published + 1}`, message: LIST_CHANGED });
    await fresh.close();
  });
  it('400 for a Last-Event-ID of another session or a garbage one', async () => {
    const s = await openSession();
    const other = await openSession();
    const os = await openStream(other);
    await os.next();
    const otherId = (await os.next()).id!;
    await os.close();
    await (await openStream(s)).close();
    for (const bad of [otherId, 'garbage', 'x.1']) {
      const res = await SELF.fetch(MCP_URL, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': s.id, 'last-event-id': bad },
      });
      await expectError(res, 400, -32000);
    }
  });
  it('400 for a Last-Event-ID whose generation is past the largest safe integer', async () => {
    const s = await openSession();
    const st = await openStream(s);
    await st.next();
    const own = (await st.next()).id!;
    await st.close();
    for (const past of ['9999999999999999', '9007199254740993']) {
      const res = await SELF.fetch(MCP_URL, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': s.id, 'last-event-id': own.replace(/\d+$/, past) },
      });
      await expectError(res, 400, -32000);
    }
  });
  it('a second stream replaces the first', async () => {
    const s = await openSession();
    const one = await openStream(s);
    await one.next();
    const two = await openStream(s);
    expect(await one.ended()).toBe(true);
    await publish(FIXTURE_PROMPTS);
    expect((await two.nextMessage()).message).toEqual(LIST_CHANGED);
    await two.close();
  });
});

describe('session end', () => {
  it('DELETE ends the stream and leaves the registry', async () => {
    const s = await openSession();
    const stream = await openStream(s);
    await stream.next();
    const del = await SELF.fetch(MCP_URL, { method: 'DELETE', headers: { 'mcp-session-id': s.id } });
    expect(del.status).toBe(200);
    expect(await stream.ended()).toBe(true);
    await waitFor(async () => (await streamsAtShard(s.id)) === 0, 'socket closed at the shard');
  });
  it("a stream that reaches its shard after its session ended elsewhere is refused, until the id's TTL", async () => {
    const s = await openSession();
    expect((await endSession(s)).status).toBe(200);
    // An isolate whose liveness memo still vouched for the session opens its stream anyway: the shard says no.
    const shard = shardIndex(s.id, shardCount(env));
    const open = () => directStream({ sessionId: s.id, shard, priming: true });
    expect(await open()).toBeNull();
    // Its row goes once the id has expired: then no check passes anyway, so nothing needs refusing.
    await runInDurableObject(shardStub(env, shard), (_o, ctx) => {
      ctx.storage.sql.exec('UPDATE ended SET until = ? WHERE session = ?', Date.now() - 1, s.id);
    });
    const late = await open();
    expect(late).toBeInstanceOf(Response);
    await late!.body!.cancel();
    await shardStub(env, shard).endSession('someone-else');
    expect(
      await runInDurableObject(shardStub(env, shard), (_o, ctx) =>
        ctx.storage.sql.exec('SELECT count(*) AS n FROM ended WHERE session = ?', s.id).one(),
      ),
    ).toEqual({ n: 0 });
  });
  it('a stream outlives a liveness check its session object could not answer (reset under the call)', async () => {
    // An id whose unusedUntil is a second away: from then on, the stream's keepalives ask its object.
    const id = await mintSessionId(SECRET, '2025-11-25', undefined, { ttlMs: 60_000, now: Date.now() - 59_000 });
    const { unusedUntil } = (await readSessionToken(SECRET, id))!;
    const stream = await openStream({ id, version: '2025-11-25' });
    expect(stream.response.status).toBe(200);
    const held = hold(sessionObject(id), 'session object reset');
    // Three keepalive intervals past it: a check is waiting on the held object, and fails at the reset.
    await waitFor(() => Date.now() >= unusedUntil + 900, 'a liveness check waiting');
    await held.release();
    expect(await stream.ended(1_500)).toBe(false);
    await publish(FIXTURE_PROMPTS);
    expect((await stream.nextMessage()).message).toEqual(LIST_CHANGED);
    await stream.close();
  });
  it('a restarted session object keeps its subscriber', async () => {
    const s = await openSession();
    const stream = await openStream(s);
    await stream.next();
    expect(await streamsAtShard(s.id)).toBe(1);
    // Reset the object: its memory and its WebSockets are gone; only storage survives.
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id));
    await runInDurableObject(stub, (_o, ctx) => ctx.abort('test restart')).catch(() => {});
    await publish(FIXTURE_PROMPTS);
    expect((await stream.nextMessage()).message).toEqual(LIST_CHANGED);
    await publish(FIXTURE_PROMPTS);
    expect((await stream.nextMessage()).message).toEqual(LIST_CHANGED);
    await stream.close();
  });
});
