/**
 * Concurrency (issue 11, item 5): 100 concurrent publishes of different
 * prompts and 20 concurrent invalid ones through /admin/publish, while
 * clients of both eras (legacy GET streams, modern listen streams) are
 * connected, through the real coalescing window.
 *
 * Afterwards every valid prompt is there exactly once with its own version
 * and generation, the invalid ones changed nothing, the generation only grew
 * (sampled all through the burst), every client heard at least once and the
 * final generation, and no client heard any generation twice. Counts are
 * printed; each count that should be 0 is asserted to be 0.
 */
import { env } from 'cloudflare:test';
import { SELF } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readGeneration } from '../../src/catalog/store.js';
import { catalogWriter } from '../../src/catalog/stubs.js';
import { flushFeed } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import {
  endListeners,
  notificationsUntilEnd,
  openListener,
  settleListeners,
  useListenClock,
} from '../helpers/listen.js';
import { finishLegacy, legacyClient } from '../helpers/tally.js';
import { publish } from '../helpers/worker.js';

const realSetTimeout = globalThis.setTimeout.bind(globalThis);
const pause = (ms: number) => new Promise((r) => realSetTimeout(r, ms));

const VALID = 100;
const INVALID = 20;
const counts = {
  validPublishes: VALID,
  invalidPublishes: INVALID,
  legacyClients: 0,
  modernClients: 0,
  generationsAnnounced: 0,
  generationSamples: 0,
  legacyNotificationsPerClient: [] as number[],
  modernNotificationsPerClient: [] as number[],
  lostUpdates: 0,
  duplicateApplications: 0,
  invalidApplied: 0,
  generationRegressions: 0,
  clientsNeverNotified: 0,
  clientsMissingFinalGeneration: 0,
  notificationsAboveOnePerGeneration: 0,
};

afterAll(() => {
  console.log(JSON.stringify({ suite: 'concurrency', ...counts }));
});

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

const text = (name: string, t: string) => ({ name, messages: [{ role: 'user', content: { type: 'text', text: t } }] });

/** Twenty sets the writer must refuse whole; most carry a valid prompt that must not slip in. */
function invalidSet(i: number): unknown[] {
  const innocent = text(`conc_innocent_${i}`, 'must not be applied');
  const bad = [
    { name: `bad name ${i}`, messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] },
    { name: `conc_empty_${i}`, messages: [] },
    { name: `conc_nomsg_${i}` },
    { name: `conc_role_${i}`, messages: [{ role: 'robot', content: { type: 'text', text: 'x' } }] },
    { name: `conc_type_${i}`, messages: [{ role: 'user', content: { type: 'hologram' } }] },
  ][i % 5];
  return i % 2 ? [innocent, bad] : [bad];
}

function publishSet(prompts: unknown[]): Promise<Response> {
  return SELF.fetch('https://gateway.test/admin/publish', {
    method: 'POST',
    headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify({ prompts }),
  });
}

describe('100 concurrent valid publishes and 20 invalid ones, with clients of both eras connected', () => {
  it('lose nothing, apply nothing twice, change nothing when invalid, and notify each client once per generation', async () => {
    useListenClock();
    try {
      const writer = catalogWriter(env);
      const before = await writer.current();
      const g0 = await readGeneration(env.PROMPTS);
      const legacy = await Promise.all([
        legacyClient(),
        legacyClient(),
        legacyClient('2025-06-18'),
        legacyClient('2025-03-26'),
        legacyClient(),
        legacyClient(),
      ]);
      const modern = await Promise.all(Array.from({ length: 6 }, () => openListener()));
      counts.legacyClients = legacy.length;
      counts.modernClients = modern.length;

      // The generation, sampled all through the burst, must never move backwards.
      let bursting = true;
      const samples: number[] = [g0];
      const sampler = (async () => {
        while (bursting) {
          samples.push(await readGeneration(env.PROMPTS));
          await pause(5);
        }
      })();
      const valid = Array.from({ length: VALID }, (_, i) => publishSet([text(`conc_${i}`, `prompt ${i}`)]));
      const invalid = Array.from({ length: INVALID }, (_, i) => publishSet(invalidSet(i)));
      const validReplies = await Promise.all(
        valid.map(async (r) => ({ status: (await r).status, body: (await (await r).json()) as any })),
      );
      const invalidReplies = await Promise.all(
        invalid.map(async (r) => ({ status: (await r).status, body: (await (await r).json()) as any })),
      );
      bursting = false;
      await sampler;
      samples.push(await readGeneration(env.PROMPTS));
      counts.generationSamples = samples.length;
      for (let i = 1; i < samples.length; i++) if (samples[i]! < samples[i - 1]!) counts.generationRegressions += 1;

      // Every valid publish: 200, version 1 of its own prompt, a generation of its own.
      for (const [i, r] of validReplies.entries()) {
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.versions).toEqual({ [`conc_${i}`]: 1 });
      }
      const generations = validReplies.map((r) => r.body.generation as number);
      expect(new Set(generations).size).toBe(VALID);
      expect(Math.min(...generations)).toBeGreaterThan(g0);
      // Every invalid one: 422 with its issues.
      for (const [i, r] of invalidReplies.entries()) {
        expect(r.status, JSON.stringify(r.body)).toBe(422);
        // Exactly one issue, on the one bad prompt of the set (invalidSet puts it first or second).
        expect(r.body.error.issues).toEqual([
          { path: expect.stringMatching(new RegExp(`^prompts\\[${i % 2}\\]`)), message: expect.any(String) },
        ]);
      }

      // What the writer holds and what the edge serves.
      const final = await readGeneration(env.PROMPTS);
      expect(final).toBe(Math.max(...generations));
      const head = (await env.PROMPTS.get<{ generation: number; prompts: { name: string }[] }>(
        'catalog/head',
        'json',
      ))!;
      expect(head.generation).toBe(final);
      const served = new Set(head.prompts.map((p) => p.name));
      for (let i = 0; i < VALID; i++) {
        const { versions } = await writer.get(`conc_${i}`);
        if (versions.length === 0 || !served.has(`conc_${i}`)) counts.lostUpdates += 1;
        if (versions.length > 1) counts.duplicateApplications += 1;
        expect(versions.map((v) => [v.version, v.generation])).toEqual([[1, generations[i]]]);
      }
      const after = await writer.current();
      const untouched = after.filter((p) => !/^conc_\d+$/.test(p.record.name));
      const was = new Map(before.map((p) => [p.record.name, JSON.stringify(p)]));
      counts.invalidApplied =
        untouched.filter((p) => was.get(p.record.name) !== JSON.stringify(p)).length +
        (before.length - untouched.filter((p) => was.has(p.record.name)).length);
      expect(untouched).toEqual(before);
      for (const p of head.prompts) expect(p.name).not.toMatch(/^conc_(innocent|empty|nomsg|role|type)_|^bad name/);

      // Notifications: every fan-out done, every stream has handled what it was sent, then each stream ends.
      expect(await flushFeed()).toBe(final);
      await settleListeners(modern.length);
      endListeners();
      const tallies = [];
      for (const c of legacy) tallies.push(await finishLegacy(c));
      // Legacy: the session's log names each generation it announced; the client got each exactly once.
      const announced = tallies[0]!.logged;
      counts.generationsAnnounced = announced.length;
      for (const t of tallies) {
        counts.notificationsAboveOnePerGeneration += t.duplicates;
        counts.legacyNotificationsPerClient.push(t.received.length);
        if (t.received.length === 0) counts.clientsNeverNotified += 1;
        if (t.logged.at(-1) !== final) counts.clientsMissingFinalGeneration += 1;
        expect(t.missed).toBe(0);
        expect(t.received).toHaveLength(t.logged.length);
        expect(t.logged).toEqual(announced);
      }
      // Modern: no ids on the wire; at least one, and never more than the generations announced.
      for (const l of modern) {
        const got = (await notificationsUntilEnd(l)).length;
        counts.modernNotificationsPerClient.push(got);
        if (got === 0) counts.clientsNeverNotified += 1;
        counts.notificationsAboveOnePerGeneration += Math.max(0, got - announced.length);
      }
      // The burst coalesced: far fewer notifications than writes, and each for a generation a publish made.
      expect(announced.length).toBeLessThan(VALID);
      for (const g of announced) expect(generations).toContain(g);

      expect({
        lostUpdates: counts.lostUpdates,
        duplicateApplications: counts.duplicateApplications,
        invalidApplied: counts.invalidApplied,
        generationRegressions: counts.generationRegressions,
        clientsNeverNotified: counts.clientsNeverNotified,
        clientsMissingFinalGeneration: counts.clientsMissingFinalGeneration,
        notificationsAboveOnePerGeneration: counts.notificationsAboveOnePerGeneration,
      }).toEqual({
        lostUpdates: 0,
        duplicateApplications: 0,
        invalidApplied: 0,
        generationRegressions: 0,
        clientsNeverNotified: 0,
        clientsMissingFinalGeneration: 0,
        notificationsAboveOnePerGeneration: 0,
      });
    } finally {
      vi.useRealTimers();
    }
  });
});
