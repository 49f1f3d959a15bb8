import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { openSession, publish } from '../helpers/worker.js';

describe('smoke', () => {
  beforeAll(async () => {
    await publish(FIXTURE_PROMPTS);
  });
  it('initializes and lists', async () => {
    const s = await openSession();
    const r = await s.call('prompts/list');
    expect(r.status).toBe(200);
    expect(r.body.result.prompts.map((p: any) => p.name)).toEqual(['alpha', 'embedded', 'greet']);
  });
});
