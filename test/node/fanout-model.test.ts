/**
 * The fan-out model's arithmetic (bench/model/tree.mjs): list prices times what one change does,
 * and which platform limit binds first, on figures simple enough to check by hand.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a bench module in plain JavaScript, without types.
import { calibrate, perSessionDesign, production, relaysNeeded } from '../../bench/model/tree.mjs';

const hops = {
  callMs: 0.5,
  rpcMs: 50,
  sendMs: 0.1,
  shardFixedMs: 1,
  wsMs: 50,
  frameMs: 0.1,
  coalesceMs: 250,
  sessionWakeMs: 5,
  socketBytes: 20_000,
};

describe('fan-out model', () => {
  it('a change costs S + 2 object requests and a few rows per shard, not two rows per session', () => {
    const p = production(1_000_000, 256, hops);
    expect(p.perShard).toBe(3907);
    expect(p.cost.requests).toBeCloseTo((258 * 0.15) / 1e6, 12);
    expect(p.cost.rows).toBeCloseTo((8 + 256 * 4) / 1e6, 12);
    // 250 + 256 * 0.5 + 50 + (1 + 3907 * 0.1) + 50 + 0.1
    expect(p.lastMs).toBeCloseTo(869.8, 6);
    const old = perSessionDesign(1_000_000, 256, hops);
    expect(old.cost.rows).toBeCloseTo(2.000006, 6);
    expect(old.total / p.total).toBeGreaterThan(500);
  });
  it('at 10,000 shards the feed uses every subrequest one invocation has: that binds first', () => {
    expect(production(1_000_000, 10_000, hops).binding).toEqual(['feed subrequests', 1]);
    expect(production(1_000_000, 16, { ...hops, socketBytes: 0 }).binding[0]).toBe('shard CPU');
    expect(relaysNeeded(10_000)).toBe(0);
    expect(relaysNeeded(25_000)).toBe(3);
  });
  it("an awake shard holds every socket it sends to: too few shards run out of an object's memory", () => {
    // 62,500 sockets of 20 KB on one shard: 1.25 GB, about 9.3 times an object's 128 MiB.
    const few = production(1_000_000, 16, hops);
    expect(few.binding[0]).toBe('shard memory');
    expect(few.binding[1]).toBeCloseTo((62_500 * 20_000) / (128 * 1024 * 1024), 9);
    // 3,907 sockets: 78 MB, 58 % of it.
    expect(production(1_000_000, 256, hops).headroom['shard memory']).toBeCloseTo(0.5822, 4);
  });
  it('calibrates per-stream CPU and the fixed part from measured runs', () => {
    const runs = [
      { n: 1000, lastMs: 105, cpu: { workerdMs: 100 } },
      { n: 1000, lastMs: 103, cpu: { workerdMs: 100 } },
    ];
    expect(calibrate(runs)).toEqual({ perStreamMs: 0.1, fixedMs: 4, runs: 2 });
  });
});
