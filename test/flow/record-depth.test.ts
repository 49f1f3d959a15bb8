/**
 * How deep a prompt record may nest (MAX_RECORD_DEPTH, src/catalog/validate.ts), against the admin
 * API's bound on a whole body (64 levels): a record the validator accepts fits every admin body,
 * a publish's included, and a deeper one is a problem naming the prompt and the field rather than
 * a body refused whole, or a prompt `PUT` takes (its record is the body) that no publish could carry.
 */
import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { MAX_RECORD_DEPTH } from '../../src/catalog/validate.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/lib/json.js';

const ADMIN = 'https://gateway.test/admin';

function admin(method: string, path: string, body: unknown): Promise<Response> {
  return SELF.fetch(ADMIN + path, {
    method,
    headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A prompt nesting `depth` levels (the record is level 1) through its block's `_meta`. */
function prompt(name: string, depth: number) {
  // record, messages, the message, its content, then _meta: level 5.
  let meta: Record<string, unknown> = {};
  for (let level = 5; level < depth; level++) meta = { a: meta };
  return { name, messages: [{ role: 'user', content: { type: 'text', text: 'x', _meta: meta } }] };
}

type Refusal = { error: { code: string; issues: { path: string; message: string }[] } };

describe('a record at the depth bound', () => {
  it('nests exactly that deep, and fits a publish body', async () => {
    const record = prompt('at_bound', MAX_RECORD_DEPTH);
    expect(nestedDeeperThan(record, MAX_RECORD_DEPTH - 1)).toBe(true);
    expect(nestedDeeperThan({ prompts: [record] }, MAX_JSON_DEPTH)).toBe(false);
    const res = await admin('POST', '/publish?dry_run=1', { prompts: [record] });
    expect(res.status).toBe(200);
  });
});

describe('a record one level deeper', () => {
  it('is a 422 naming the prompt and the field, in a body the API reads', async () => {
    const res = await admin('POST', '/publish?dry_run=1', { prompts: [prompt('too_deep', MAX_RECORD_DEPTH + 1)] });
    expect(res.status).toBe(422);
    const { error } = await res.json<Refusal>();
    expect(error.issues).toEqual([
      {
        path: expect.stringMatching(/^prompts\[0\]: messages\[0\]\.content\._meta(\.a)+$/),
        message: expect.stringContaining(`nests deeper than ${MAX_RECORD_DEPTH} levels`),
      },
    ]);
  });

  it('is refused by PUT too, where the record is the whole body: nothing a publish could not carry is stored', async () => {
    const before = await readGeneration(env.PROMPTS);
    const { name: _n, ...record } = prompt('deep_put', MAX_JSON_DEPTH - 1);
    const res = await admin('PUT', '/prompts/deep_put', record);
    expect(res.status).toBe(422);
    expect((await res.json<Refusal>()).error.issues[0]!.message).toContain('nests deeper than');
    expect(await readGeneration(env.PROMPTS)).toBe(before);
  });
});
