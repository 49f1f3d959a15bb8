/**
 * A socket that goes quiet without closing (session/bridge.ts `lagging`): a half-open connection,
 * or an object restarted without its Worker hearing of it. The stream notices only that it trails
 * the catalog its isolate serves; once that lasts past the grace, it reconnects and the object's
 * replay brings it level. Real WebSockets (WebSocketPairs in workerd), no object behind them: the
 * test plays the object.
 */
import { describe, expect, it } from 'vitest';
import { pair, pause, until } from '../helpers/socket-pair.js';
import { bridge } from '../../src/session/bridge.js';
import { behind } from '../../src/session/watch.js';

type Frame = { g: number };

/** A stream over a first socket, with what it delivered and the sockets it asked for. */
function stream(opts: { keepaliveMs: number; lagGraceMs?: number; replay: (theirs: WebSocket) => void }) {
  const first = pair();
  const state = { served: 0, position: 0, delivered: [] as number[], connects: 0, sockets: [first] };
  const res = bridge<Frame>(first.ours, {
    connect: async () => {
      state.connects++;
      const next = pair();
      state.sockets.push(next);
      // The object's `open` and replay come once the Worker holds the socket.
      setTimeout(() => opts.replay(next.theirs), 0);
      return next.ours;
    },
    keepaliveMs: opts.keepaliveMs,
    ...(opts.lagGraceMs !== undefined && { lagGraceMs: opts.lagGraceMs }),
    onFrame: (f) => {
      if (f.g <= state.position) return;
      state.position = f.g;
      state.delivered.push(f.g);
    },
    lagging: () => behind(state.served, state.position),
  });
  return { state, res, first };
}

describe('bridge: a socket that went quiet', () => {
  it('reconnects once the stream trails what its isolate serves for longer than the grace, and the replay reaches the client once', async () => {
    const s = stream({
      keepaliveMs: 20,
      lagGraceMs: 80,
      replay: (theirs) => theirs.send(JSON.stringify({ g: 5 })),
    });
    const reason = new Promise<string>((r) => s.first.theirs.addEventListener('close', (e) => r(e.reason)));
    s.first.theirs.send(JSON.stringify({ g: 4 }));
    await until(() => s.state.position === 4, 2_000);
    // The isolate serves 5; the first socket never brings it.
    s.state.served = 5;
    await until(() => s.state.connects === 1, 2_000);
    expect(await reason).toBe('lagging');
    await until(() => s.state.position === 5, 2_000);
    // Level again: no further reconnect, however many keepalives pass.
    await pause(200);
    expect(s.state.connects).toBe(1);
    expect(s.state.delivered).toEqual([4, 5]);
    await s.res.body!.cancel();
  });

  it('does not reconnect for a lag shorter than the grace (a delivery still under way)', async () => {
    const s = stream({ keepaliveMs: 20, lagGraceMs: 300, replay: () => {} });
    s.state.served = 3;
    await pause(150);
    s.first.theirs.send(JSON.stringify({ g: 3 }));
    await until(() => s.state.position === 3, 2_000);
    await pause(300);
    expect(s.state.connects).toBe(0);
    expect(s.state.delivered).toEqual([3]);
    await s.res.body!.cancel();
  });

  it('asks a shard that never had the change once for it, and again only for a newer one', async () => {
    // The object replays nothing: the change never reached it.
    const s = stream({ keepaliveMs: 20, lagGraceMs: 40, replay: () => {} });
    s.state.served = 7;
    await until(() => s.state.connects === 1, 2_000);
    await pause(250);
    expect(s.state.connects).toBe(1);
    s.state.served = 8;
    await until(() => s.state.connects === 2, 2_000);
    await pause(250);
    expect(s.state.connects).toBe(2);
    // When the change does reach the current socket, it is delivered once.
    s.state.sockets.at(-1)!.theirs.send(JSON.stringify({ g: 8 }));
    await until(() => s.state.position === 8, 2_000);
    expect(s.state.delivered).toEqual([8]);
    await s.res.body!.cancel();
  });

  it('gives the quiet socket up for good: its close starts no second reconnect, and the stream carries on', async () => {
    const s = stream({ keepaliveMs: 20, lagGraceMs: 40, replay: (theirs) => theirs.send(JSON.stringify({ g: 2 })) });
    let ended = false;
    const reader = s.res.body!.getReader();
    void (async () => {
      while (!(await reader.read()).done);
      ended = true;
    })();
    const gaveUp = new Promise<void>((r) => s.first.theirs.addEventListener('close', () => r()));
    s.state.served = 2;
    await until(() => s.state.position === 2, 2_000);
    await gaveUp;
    await pause(150);
    expect(s.state.connects).toBe(1);
    expect(ended).toBe(false);
    // The new socket carries the next change.
    s.state.sockets[1]!.theirs.send(JSON.stringify({ g: 3 }));
    await until(() => s.state.position === 3, 2_000);
    expect(s.state.delivered).toEqual([2, 3]);
    await reader.cancel();
  });
});
