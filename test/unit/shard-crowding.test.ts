/**
 * The change feed's warning that a registry shard holds more streams than an object's memory is
 * sized for (session/fanout.ts crowding; docs/scale.md, "What binds first").
 */
import { describe, expect, it } from 'vitest';
import { crowding, SHARD_STREAMS_WARN } from '../../src/session/fanout.js';

describe('a crowded registry shard', () => {
  it('is named past 5,000 streams, with the fix', () => {
    expect(SHARD_STREAMS_WARN).toBe(5_000);
    expect(crowding(5_000, 16)).toBeUndefined();
    expect(crowding(0, 16)).toBeUndefined();
    expect(crowding(5_001, 16)).toEqual({
      busiestShard: 5_001,
      shards: 16,
      limit: 5_000,
      fix: 'raise REGISTRY_SHARDS: one shard per 5000 streams or more (docs/scale.md)',
    });
  });
});
