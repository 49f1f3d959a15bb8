/**
 * For tests of what one registry shard admits (shard-cap, client-streams): the fixture catalog
 * published and served in this isolate before the file runs, the streams the test holds closed
 * after it, and the count of legacy streams at shard 0.
 */
import { env, SELF } from 'cloudflare:test';
import { afterAll, beforeAll, expect } from 'vitest';
import { shardStub } from '../../src/session/fanout.js';
import { FIXTURE_PROMPTS } from './fixtures.js';
import { readEvents, type EventStream } from './sse.js';
import { publish } from './worker.js';

export function heldStreams() {
  const open: EventStream[] = [];
  beforeAll(async () => {
    await publish(FIXTURE_PROMPTS);
    // Through SELF once, so the catalog is served in this isolate.
    await SELF.fetch('https://gateway.test/prompts');
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
  });
  /** An accepted stream, read up to its retry hint (the shard has taken its socket), closed after the file. */
  const held = async (res: Response): Promise<EventStream> => {
    expect(res.status).toBe(200);
    const stream = readEvents(res);
    open.push(stream);
    await stream.next();
    return stream;
  };
  const streamsAtShard = async () => (await shardStub(env, 0).counts()).sessions;
  return { open, held, streamsAtShard };
}
