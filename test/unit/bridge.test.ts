/**
 * The socket bridge's `before` hook (session/bridge.ts): a frame that must wait (its Worker is
 * catching up with the catalog it announces) holds back the frames after it, so a stream never
 * reorders, and frames after the wait still pass. The client going away (its request signal) or
 * no longer reading (nothing taken for its stall time) ends the stream and its socket,
 * and a stream that ends while its client reads nothing still ends. A reconnect that fails is
 * tried again; one answered with a refusal ends the stream. Real WebSockets
 * (a WebSocketPair in workerd), no object behind them.
 */
import { describe, expect, it } from 'vitest';
import { pair, until } from '../helpers/socket-pair.js';
import { bridge } from '../../src/session/bridge.js';

describe('bridge: frames that wait', () => {
  it('keeps their order behind a frame that waits, and frames after the wait still pass', async () => {
    const { ours, theirs } = pair();
    const seen: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const asked: number[] = [];
    const res = bridge<{ n: number }>(ours, {
      connect: () => Promise.resolve(404),
      keepaliveMs: 60_000,
      onFrame: (f) => void seen.push(f.n),
      before: (f) => (asked.push(f.n), f.n === 2 ? held : undefined),
    });
    for (const n of [1, 2, 3, 4]) theirs.send(JSON.stringify({ n }));
    await until(() => seen.length === 1);
    // 2 waits; 3 and 4 arrived behind it and wait too, whatever their own answer would be.
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([1]);
    release();
    await until(() => seen.length === 4);
    expect(seen).toEqual([1, 2, 3, 4]);
    // Asked of every frame, in order, once.
    expect(asked).toEqual([1, 2, 3, 4]);
    theirs.send(JSON.stringify({ n: 5 }));
    await until(() => seen.length === 5);
    await res.body!.cancel();
  });

  it('a frame whose handler throws ends the stream instead of stalling it', async () => {
    const { ours, theirs } = pair();
    const res = bridge<{ n: number }>(ours, {
      connect: () => Promise.resolve(404),
      keepaliveMs: 60_000,
      onFrame: () => {
        throw new Error('boom');
      },
    });
    const reader = res.body!.getReader();
    theirs.send(JSON.stringify({ n: 1 }));
    expect((await reader.read()).done).toBe(true);
  });
});

describe('bridge: the client going away', () => {
  it("ends the stream and closes the object's socket when the request's signal aborts, with the body never cancelled", async () => {
    const { ours, theirs } = pair();
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      theirs.addEventListener('close', (e) => r({ code: e.code, reason: e.reason })),
    );
    const gone = new AbortController();
    const res = bridge<{ n: number }>(ours, {
      connect: () => Promise.resolve(404),
      keepaliveMs: 60_000,
      onFrame: () => {},
      clientGone: gone.signal,
    });
    // Nobody reads or cancels the body: as on a runtime that reports a departed client only by the signal.
    gone.abort();
    expect(await closed).toEqual({ code: 1000, reason: 'stream closed' });
    expect((await res.body!.getReader().read()).done).toBe(true);
  });

  it('a signal already aborted when the stream opens ends it at once', async () => {
    const { ours, theirs } = pair();
    const closed = new Promise<number>((r) => theirs.addEventListener('close', (e) => r(e.code)));
    const res = bridge<{ n: number }>(ours, {
      connect: () => Promise.resolve(404),
      keepaliveMs: 60_000,
      onFrame: () => {},
      clientGone: AbortSignal.abort(),
    });
    expect(await closed).toBe(1000);
    expect((await res.body!.getReader().read()).done).toBe(true);
  });
});

describe('bridge: a client that stops reading', () => {
  it('is given 30 s by default, however short the keepalive', async () => {
    const { ours, theirs } = pair();
    let socketClosed = false;
    theirs.addEventListener('close', () => (socketClosed = true));
    const res = bridge<{ n: number }>(
      ours,
      { connect: () => Promise.resolve(404), keepaliveMs: 20, onFrame: () => {} },
      [new TextEncoder().encode('retry: 1000\n\n')],
    );
    // Ten keepalive intervals unread: far more than two, far less than 30 s.
    await new Promise((r) => setTimeout(r, 200));
    expect(socketClosed).toBe(false);
    await res.body!.cancel();
  });

  it('is let go once it took nothing for its stall time (two keepalive intervals here), its socket closed', async () => {
    const { ours, theirs } = pair();
    const closed = new Promise<number>((r) => theirs.addEventListener('close', (e) => r(e.code)));
    const opened = Date.now();
    bridge<{ n: number }>(
      ours,
      { connect: () => Promise.resolve(404), keepaliveMs: 30, stalledMs: 60, onFrame: () => {} },
      [new TextEncoder().encode('retry: 1000\n\n')],
    );
    // Nobody reads the body: the preamble is never taken.
    expect(await closed).toBe(1000);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(50);
  });

  it('a client that keeps reading stays, however long', async () => {
    const { ours, theirs } = pair();
    let socketClosed = false;
    theirs.addEventListener('close', () => (socketClosed = true));
    const res = bridge<{ n: number }>(ours, {
      connect: () => Promise.resolve(404),
      keepaliveMs: 20,
      stalledMs: 40,
      onFrame: () => {},
    });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let keepalives = 0;
    while (keepalives < 10) keepalives += dec.decode((await reader.read()).value).split('keepalive').length - 1;
    expect(socketClosed).toBe(false);
    await reader.cancel();
  });
});

describe('bridge: a stream that ends while its client reads nothing', () => {
  it('still ends: its body errors once the unread bytes have waited as long as the stall rule allows', async () => {
    const { ours } = pair();
    const res = bridge<{ n: number }>(
      ours,
      {
        connect: () => Promise.resolve(404),
        keepaliveMs: 20,
        stalledMs: 40,
        maxMs: 10,
        onFrame: () => {},
      },
      [new TextEncoder().encode('retry: 1000\n\n'), new TextEncoder().encode(': opened\n\n')],
    );
    // Ended by its maximum (before any keepalive) with two frames unread: the close cannot complete behind them.
    await new Promise((r) => setTimeout(r, 150));
    await expect(res.body!.getReader().read()).rejects.toThrow('the client stopped reading');
  });
});

describe('bridge: a reconnect that fails', () => {
  it('is tried again after a pause, and the stream goes on through the socket it then gets', async () => {
    const first = pair();
    const next = pair();
    let connects = 0;
    const seen: number[] = [];
    const res = bridge<{ n: number }>(first.ours, {
      // The shard restarting under its streams: the first two attempts fail, the third gets a socket.
      connect: () => (++connects < 3 ? Promise.reject(new Error('shard reset')) : Promise.resolve(next.ours)),
      keepaliveMs: 60_000,
      onFrame: (f, client) => {
        seen.push(f.n);
        client.write(new TextEncoder().encode(`data: ${f.n}\n\n`));
      },
    });
    first.theirs.send(JSON.stringify({ n: 1 }));
    await until(() => seen.length === 1);
    first.theirs.close(1001, 'going away');
    await until(() => connects === 3, 3_000);
    next.theirs.send(JSON.stringify({ n: 2 }));
    await until(() => seen.length === 2);
    expect(seen).toEqual([1, 2]);
    await res.body!.cancel();
  });

  it('an answer to a reconnect (a number: the session ended) ends the stream, without another try', async () => {
    const first = pair();
    let connects = 0;
    const res = bridge<{ n: number }>(first.ours, {
      connect: () => (connects++, Promise.resolve(404)),
      keepaliveMs: 60_000,
      onFrame: () => {},
    });
    const reader = res.body!.getReader();
    first.theirs.close(1001, 'going away');
    expect((await reader.read()).done).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(connects).toBe(1);
  });
});
