/**
 * Durable Object faults (issue 11, item 4): a session object, the registry
 * shards, the change feed and the catalog writer are each restarted (the
 * runtime's abort: memory and sockets gone, storage kept) while GET streams
 * and listen streams are open and publishes are in flight.
 *
 * Invariants after every fault: no session is lost, a GET stream (resumed by
 * its Worker, or by the client with Last-Event-ID) carries every
 * notification its session logged exactly once and in order, no publish is
 * lost (history, KV and the announcement all converge without another
 * write) and none is applied twice. The suite prints its counts; each
 * count that should be 0 is asserted to be 0.
 */
import {
  abortAllDurableObjects,
  createExecutionContext,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
  SELF,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { catalogWriter, writerObject } from '../../src/catalog/stubs.js';
import { publishChange, shardStub } from '../../src/session/fanout.js';
import { feedStub, flushFeed, holdFeed, runFeedAlarm, waitFor } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { hold } from '../helpers/hold.js';
import {
  endListeners,
  notificationsUntilEnd,
  openListener,
  settleListeners,
  useListenClock,
  type Listener,
} from '../helpers/listen.js';
import {
  finishLegacy,
  legacyClient,
  sessionObject,
  shardOf,
  streamsAtShard,
  type LegacyClient,
} from '../helpers/tally.js';
import { MCP_URL, openStream, publish } from '../helpers/worker.js';
import { initialize, postInit } from '../helpers/protocol.js';
import worker from '../../src/index.js';

const counts = {
  faultsInjected: 0,
  faultsSurvived: 0,
  lostUpdates: 0,
  duplicateApplications: 0,
  duplicateNotifications: 0,
  missedReplays: 0,
  lostSessions: 0,
};

afterAll(() => {
  console.log(JSON.stringify({ suite: 'durable-object-faults', ...counts }));
});

/** Faults injected by the running test; they count as survived only once all its checks have passed. */
let unproven = 0;
afterEach((ctx) => {
  // A failed check marks the test 'fail' before its afterEach hooks run.
  if (ctx.task.result?.state !== 'fail' && !ctx.task.result?.errors?.length) counts.faultsSurvived += unproven;
  unproven = 0;
});
const injected = () => {
  counts.faultsInjected += 1;
  unproven += 1;
};

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

const writerStub = () => writerObject(env);
const writer = () => catalogWriter(env);

/** The runtime's restart of one object: its memory and sockets are gone, its storage stays. */
async function restart(stub: DurableObjectStub): Promise<void> {
  injected();
  await runInDurableObject(stub, (_o, ctx) => ctx.abort('injected fault')).catch(() => {});
}

/**
 * Ends the listen streams and tallies them: each heard at least one change (a change announced while a
 * stream was reconnecting is heard once on reconnect, several coalesce); more than `rounds` are duplicates.
 */
async function tallyListeners(listeners: Listener[], rounds: number): Promise<void> {
  await settleListeners(listeners.length);
  endListeners();
  for (const l of listeners) {
    const got = await notificationsUntilEnd(l);
    expect(got.length).toBeGreaterThanOrEqual(1);
    counts.duplicateNotifications += Math.max(0, got.length - rounds);
  }
}

/** Tallies legacy clients into the counts; each must have got exactly `generations` notifications. */
async function tallyLegacy(clients: LegacyClient[], generations: number): Promise<void> {
  for (const c of clients) {
    const alive = (await c.session.call('ping')).status === 200;
    if (!alive) counts.lostSessions += 1;
    const t = await finishLegacy(c);
    counts.duplicateNotifications += t.duplicates;
    counts.missedReplays += t.missed;
    counts.lostUpdates += Math.max(0, generations - t.logged.length);
    expect(t.logged, `session ${c.session.id.slice(0, 8)}: one notification per generation`).toHaveLength(generations);
    expect(t.received).toHaveLength(generations);
  }
}

const admin = (method: string, path: string, body?: unknown) =>
  SELF.fetch(`https://gateway.test/admin${path}`, {
    method,
    headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const text = (name: string, t: string) => ({ name, messages: [{ role: 'user', content: { type: 'text', text: t } }] });

/** A client that retries a failed write, as the CLI's user would: a write that did land must not apply twice. */
async function putUntilDone(name: string, t: string): Promise<number> {
  for (let attempt = 1; attempt <= 10; attempt++) {
    const res = await admin('PUT', `/prompts/${name}`, text(name, t)).catch(() => null);
    if (res?.status === 200) return attempt;
    await res?.body?.cancel();
  }
  throw new Error(`PUT ${name} never succeeded`);
}

/**
 * Sends `write` (an admin request writing prompt `name`) with the feed held, so the writer stops inside
 * its announcement; once the history and KV hold `name`, restarts every object. The write's status, and
 * its Retry-After (0 and null when the request itself failed).
 */
async function restartedWhileAnnouncing(
  name: string,
  write: () => Promise<Response>,
): Promise<{ status: number; retryAfter: string | null }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const held = runInDurableObject(feedStub(), (_o, ctx) => ctx.blockConcurrencyWhile(() => gate)).catch(() => {});
  const sent = write().then(
    (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after') }),
    () => ({ status: 0, retryAfter: null }),
  );
  await waitFor(
    async () =>
      !!(await env.PROMPTS.get<{ prompts: { name: string }[] }>('catalog/head', 'json'))?.prompts.some(
        (p) => p.name === name,
      ),
    'history and KV written',
  );
  injected();
  await abortAllDurableObjects();
  release();
  await held;
  return sent;
}

/** The writer's own retry (its alarm), then the feed: what the runtime does after a fault, with no further write. */
async function converge(): Promise<void> {
  await runDurableObjectAlarm(writerStub());
  await flushFeed();
}

describe('session object restarted mid-stream', () => {
  it('keeps the session and its subscriber; the stream carries every change once, across more restarts than the reconnect bound', async () => {
    const clients = [await legacyClient(), await legacyClient('2025-06-18'), await legacyClient()];
    const rounds = 8;
    for (let r = 0; r < rounds; r++) {
      const published = publish(FIXTURE_PROMPTS);
      for (const c of clients) await restart(sessionObject(c.session.id));
      await published;
      await flushFeed();
    }
    for (const c of clients) expect(await streamsAtShard(c.session.id)).toBe(1);
    await tallyLegacy(clients, rounds);
  });
  it('a client that resumes with Last-Event-ID after its objects restarted gets exactly what it missed', async () => {
    const c = await legacyClient();
    await publish(FIXTURE_PROMPTS);
    await flushFeed();
    const seen = (await c.stream.nextMessage()).id!;
    await c.stream.close();
    const missed: number[] = [];
    for (let r = 0; r < 3; r++) {
      missed.push(await publish(FIXTURE_PROMPTS));
      // Evicted between deliveries: the session's object and the shard that replays.
      await restart(sessionObject(c.session.id));
      await restart(shardOf(c.session.id));
      await flushFeed();
    }
    const resumed = await openStream(c.session, seen);
    const replayed = [];
    for (let i = 0; i < 3; i++) replayed.push((await resumed.nextMessage()).id);
    const key = seen.replace(/\.\d+$/, '');
    expect(replayed).toEqual(missed.map((g) => `${key}.${g}`));
    const t = await finishLegacy({ ...c, stream: resumed });
    expect(t.logged).toHaveLength(4);
    // Nothing after the replay but the end of the stream.
    expect(t.received).toEqual([]);
  });
});

describe('registry shards restarted mid-stream', () => {
  it('legacy and listen streams reconnect; a legacy stream is replayed what it missed, a listen stream hears it once', async () => {
    useListenClock();
    try {
      const clients = [await legacyClient(), await legacyClient(), await legacyClient(), await legacyClient()];
      const listeners = [await openListener(), await openListener(), await openListener()];
      const rounds = 4;
      for (let r = 0; r < rounds; r++) {
        const published = publish(FIXTURE_PROMPTS);
        for (let i = 0; i < 4; i++) await restart(shardStub(env, i));
        await published;
        await flushFeed();
      }
      // Every stream's Worker reconnected to its restarted shard.
      for (const c of clients) {
        await waitFor(async () => (await streamsAtShard(c.session.id)) === 1, 'stream back');
        expect(await streamsAtShard(c.session.id)).toBe(1);
      }
      await tallyListeners(listeners, rounds);
      await tallyLegacy(clients, rounds);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('change feed restarted', () => {
  it('mid fan-out: the retried fan-out reaches everyone once', async () => {
    useListenClock();
    try {
      const clients = [await legacyClient(), await legacyClient()];
      const listeners = [await openListener(), await openListener()];
      const rounds = 4;
      for (let r = 0; r < rounds; r++) {
        await holdFeed();
        const generation = await publish(FIXTURE_PROMPTS);
        // The fan-out and the restart race; whichever wins, the retried alarm finishes the job.
        await Promise.all([runFeedAlarm(), restart(feedStub())]);
        expect(await flushFeed(), 'the restarted feed published this round').toBe(generation);
      }
      await tallyListeners(listeners, rounds);
      await tallyLegacy(clients, rounds);
    } finally {
      vi.useRealTimers();
    }
  });
  it("between queuing a change and arming its alarm: the writer's retry of that change gets it announced", async () => {
    await holdFeed();
    const generation = await publish(FIXTURE_PROMPTS);
    // What a restart between the feed's two writes left before they were written together: pending, no alarm.
    injected();
    await runInDurableObject(feedStub(), (_o, ctx) => ctx.storage.deleteAlarm());
    // The writer's retry (its alarm after the failed call) announces the same generation again.
    expect(await publishChange(env, { kind: 'prompts_list_changed', generation })).toBe(false);
    expect(await flushFeed()).toBe(generation);
  });
  it('while publishes announce to it: every write is served and announced without another write', async () => {
    const c = await legacyClient();
    const names = Array.from({ length: 12 }, (_, i) => `feedfault_${i}`);
    const writes = names.map((n) => putUntilDone(n, 'x'));
    for (let r = 0; r < 4; r++) await restart(feedStub());
    await Promise.all(writes);
    await converge();
    await expectServedOnce(names);
    expect(await feedStub().status()).toEqual({ published: await readGeneration(env.PROMPTS), pending: null });
    const t = await finishLegacy(c);
    expect(t.logged.at(-1)).toBe(await readGeneration(env.PROMPTS));
    counts.duplicateNotifications += t.duplicates;
    counts.missedReplays += t.missed;
  });
});

describe('catalog writer restarted', () => {
  it('between queued publishes: every prompt lands exactly once, with its own version', async () => {
    const c = await legacyClient();
    const names = Array.from({ length: 30 }, (_, i) => `writerfault_${i}`);
    const writes = names.map((n) => putUntilDone(n, `text of ${n}`));
    for (let r = 0; r < 5; r++) await restart(writerStub());
    await Promise.all(writes);
    await converge();
    await expectServedOnce(names);
    const t = await finishLegacy(c);
    expect(t.logged.length).toBeGreaterThanOrEqual(1);
    expect(t.logged.at(-1)).toBe(await readGeneration(env.PROMPTS));
    counts.duplicateNotifications += t.duplicates;
  });
  it('restarted after the history and KV writes, before the announcement: the write is announced with no further write', async () => {
    const name = 'crash_announcing';
    // The feed holds every call until released, so the writer is stopped exactly inside its announcement.
    const write = await restartedWhileAnnouncing(name, () => admin('PUT', `/prompts/${name}`, text(name, 'once')));
    // The restart is the runtime's, not a bug: a retryable 503, and the retry is safe.
    expect(write, 'the client saw the restart').toEqual({ status: 503, retryAfter: '1' });
    expect((await writer().get(name)).versions).toHaveLength(1);
    await converge();
    const generation = await readGeneration(env.PROMPTS);
    expect((await feedStub().status()).published, 'announced without another write').toBe(generation);
    // The client's retry of the failed write finds it applied: no second version.
    expect(await putUntilDone(name, 'once')).toBe(1);
    expect((await writer().get(name)).versions).toHaveLength(1);
  });
  it('an upload whose publish met a restart after the history was recorded stays open: the retry its 503 invites publishes it', async () => {
    const name = 'crash_staged';
    const open = await admin('POST', '/uploads');
    const id = (await open.json<{ upload: { id: string } }>()).upload.id;
    expect((await admin('POST', `/uploads/${id}/prompts`, { prompts: [text(name, 'staged')] })).status).toBe(200);
    const published = await restartedWhileAnnouncing(name, () => admin('POST', `/uploads/${id}/publish`));
    expect(published.status, 'the client saw the restart').toBe(503);
    await converge();
    // The repeat finds the upload and the set recorded: 200, no second version, and the upload used up.
    const retry = await admin('POST', `/uploads/${id}/publish`);
    expect(retry.status).toBe(200);
    expect((await retry.json<{ diff: { unchanged: string[] } }>()).diff.unchanged).toContain(name);
    expect((await writer().get(name)).versions).toHaveLength(1);
    expect((await admin('POST', `/uploads/${id}/publish?dry_run=1`)).status).toBe(404);
  });
  it('at any point of a publish (every object restarted): history, KV and the announcement converge with no further write', async () => {
    for (let k = 0; k < 24; k++) {
      const name = `crash_${k}`;
      const write = admin('PUT', `/prompts/${name}`, text(name, 'once')).then(
        (r) => r.status,
        () => 0,
      );
      // Later and later into the publish: before it, inside the history commit, the KV write, the announcement, after it.
      // (Where each restart lands depends on the machine; the invariant must hold wherever it lands.)
      await new Promise((r) => setTimeout(r, k));
      injected();
      await abortAllDurableObjects();
      const status = await write;
      const versions = (await writer().get(name)).versions.length;
      await converge();
      const head = (await env.PROMPTS.get<{ generation: number; prompts: { name: string }[] }>(
        'catalog/head',
        'json',
      ))!;
      const served = head.prompts.some((p) => p.name === name);
      const announced = (await feedStub().status()).published;
      // A write is either not applied at all, or applied once and then served and announced.
      const consistent = versions === 0 ? !served : versions === 1 && served && announced === head.generation;
      if (!consistent) counts.lostUpdates += 1;
      if (versions > 1) counts.duplicateApplications += 1;
      expect({ k, status, versions, served, announcedCurrent: announced === head.generation }).toMatchObject({
        versions: versions === 0 ? 0 : 1,
        served: versions === 1,
      });
      expect(announced, `write ${k} (HTTP ${status}) announced`).toBe(head.generation);
    }
  });
});

describe('counts', () => {
  it('every count that should be 0 is 0', () => {
    expect(counts.faultsInjected).toBeGreaterThan(0);
    expect(counts.faultsSurvived).toBe(counts.faultsInjected);
    expect({
      lostUpdates: counts.lostUpdates,
      duplicateApplications: counts.duplicateApplications,
      duplicateNotifications: counts.duplicateNotifications,
      missedReplays: counts.missedReplays,
      lostSessions: counts.lostSessions,
    }).toEqual({
      lostUpdates: 0,
      duplicateApplications: 0,
      duplicateNotifications: 0,
      missedReplays: 0,
      lostSessions: 0,
    });
  });
});

/** Each name is in the history exactly once (version 1) and in the snapshot the edge serves. */
async function expectServedOnce(names: string[]): Promise<void> {
  const head = (await env.PROMPTS.get<{ prompts: { name: string }[] }>('catalog/head', 'json'))!;
  const served = new Set(head.prompts.map((p) => p.name));
  for (const n of names) {
    const { versions } = await writer().get(n);
    if (versions.length > 1) counts.duplicateApplications += 1;
    if (versions.length === 0 || !served.has(n)) counts.lostUpdates += 1;
    expect(
      versions.map((v) => v.version),
      n,
    ).toEqual([1]);
    expect(served.has(n), `${n} served`).toBe(true);
  }
}

/** A POST to /mcp through the Worker's own fetch, with the session's liveness memo at `recheckMs`. */
const sendWith = (recheckMs: string) => async (init: RequestInit) => {
  const ctx = createExecutionContext();
  const e = { ...env, SESSION_RECHECK_MS: recheckMs } as unknown as Env;
  const res = await worker.fetch(new Request(MCP_URL, init), e, ctx);
  await waitOnExecutionContext(ctx);
  return res;
};

describe('a request whose Durable Object fails under it', () => {
  /**
   * Posts `body` in a fresh session (2025-`version`) while its object is held and then reset, so
   * the method's call to it meets the reset. The call reaching the held object is the machine's
   * timing: a run whose call arrived only after the restart (answered by the fresh object) says
   * nothing, and is made again, at most 5 times. `met` says whether the reset was met.
   */
  async function resetUnder(
    version: string,
    body: (session: string) => unknown,
    met: (res: Response, text: string) => boolean,
  ): Promise<{ res: Response; text: string }> {
    // The session is vouched for by this isolate's memo, so the method's own call is the one the reset meets.
    const send = sendWith('60000');
    for (let attempt = 1; ; attempt++) {
      const opened = await send(postInit(initialize(version)));
      const session = opened.headers.get('mcp-session-id')!;
      const object = hold(sessionObject(session), 'reset under a method');
      const answer = send(postInit(body(session), { session, version }));
      await new Promise((r) => setTimeout(r, 50 * attempt));
      await object.release();
      const res = await answer;
      const text = await res.text();
      if (met(res, text) || attempt === 5) return { res, text };
    }
  }
  const setLevel = (id: string) => ({ jsonrpc: '2.0', id, method: 'logging/setLevel', params: { level: 'info' } });

  it('is answered 503 with Retry-After when the object is reset under a method, echoing the request id', async () => {
    // Met: anything but the fresh object's success.
    const { res, text } = await resetUnder(
      '2025-11-25',
      () => setLevel('level-on-reset-object'),
      (r) => r.status !== 200,
    );
    const reply = JSON.parse(text) as { id?: unknown; error?: { code: number } };
    expect(res.status, text).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(reply.error?.code).toBe(-32603);
    expect(reply.id).toBe('level-on-reset-object');
  });
  it("in a batch, is that item's in-band error; the other items keep their answers", async () => {
    const batch = [{ jsonrpc: '2.0', id: 'p', method: 'ping' }, setLevel('l')];
    // Met: the batch was not answered as the fresh object answers it (both items succeeding).
    const { res, text } = await resetUnder(
      '2025-03-26',
      () => batch,
      (r, t) => r.status !== 200 || t.includes('"error"'),
    );
    expect(res.status, text).toBe(200);
    const replies = JSON.parse(text) as { id: string; result?: unknown; error?: { code: number } }[];
    expect(replies.find((r) => r.id === 'p')?.result).toEqual({});
    expect(replies.find((r) => r.id === 'l')?.error?.code).toBe(-32603);
  });
  it('a DELETE that met the reset can be repeated, as its 503 says: the retry ends the session', async () => {
    const send = sendWith('60000');
    const del = (session: string) =>
      send({ method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
    for (let attempt = 1; ; attempt++) {
      const session = (await send(postInit(initialize()))).headers.get('mcp-session-id')!;
      const object = hold(sessionObject(session), 'reset under DELETE');
      const answer = del(session);
      await new Promise((r) => setTimeout(r, 50 * attempt));
      await object.release();
      const first = await answer;
      // The call reaching the held object is the machine's timing: a run that missed the reset says nothing.
      if (first.status !== 503 && attempt < 5) continue;
      expect(first.status).toBe(503);
      // Repeated on the same isolate, it reaches the object and ends the session there, for every
      // isolate: 200, or 404 when the reset came after the object had ended it (a loaded machine's
      // timing), an ended session being unknown. Either way it is ended; never a second failure.
      expect([200, 404]).toContain((await del(session)).status);
      const ping = await send(postInit({ jsonrpc: '2.0', id: 'after', method: 'ping' }, { session }));
      expect(ping.status).toBe(404);
      expect((await del(session)).status).toBe(404);
      return;
    }
  });
  it('is answered 500 -32603, echoing the request id its body carried', async () => {
    // Every use asks the session's object (no liveness memo), through the Worker's own fetch.
    const send = sendWith('0');
    const opened = await send(postInit(initialize()));
    const session = opened.headers.get('mcp-session-id')!;
    // A real failure of the real object: state it cannot read, so its check of the session throws.
    await runInDurableObject(sessionObject(session), (_o, ctx) => ctx.storage.put('state', 5));
    try {
      const res = await send(postInit({ jsonrpc: '2.0', id: 'ping-on-broken-object', method: 'ping' }, { session }));
      const body = await res.json<{ id?: unknown; error?: { code: number; message: string } }>();
      expect(res.status, JSON.stringify(body)).toBe(500);
      expect(body.error).toEqual({ code: -32603, message: 'Internal error' });
      expect(body.id).toBe('ping-on-broken-object');
    } finally {
      await runInDurableObject(sessionObject(session), (_o, ctx) => ctx.storage.deleteAll());
    }
  });
});
