/**
 * A client told of a change gets the new catalog when it asks at once, even from an isolate that
 * had not seen the change (docs/live-updates.md, "Fresh after the notification"). The isolate is
 * made to lag the way a distant location does: the new generation's snapshot is in KV under its
 * own key, but `catalog/generation` (a hot key, which KV answers from its cache there) and the
 * isolate's own catalog still name the old one. Each era's stream announces the change; the
 * client's next call, served by the same isolate, must know the new prompt.
 *
 * The stream's isolate also announces the generation to its colo, and any isolate there loads an
 * announced generation at its next refresh. The test's one isolate stands in for another one of
 * the colo: it has not caught up, and KV's generation key still names the old catalog.
 *
 * An isolate that sat idle waits for its overdue check before it serves a call; one that checked
 * within the last interval or two serves what it holds and checks in the background.
 */
import { env, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { readAnnounced, writeAnnounced } from '../../src/catalog/edge.js';
import { currentCatalog, KV_KEYS, overdueMs, peekCatalog } from '../../src/catalog/store.js';
import type { CatalogSnapshot } from '../../src/catalog/types.js';
import { originOf } from '../../src/lib/url.js';
import { feedStub, flushFeed, waitFor } from '../helpers/feed.js';
import { FIXTURE_PROMPTS } from '../helpers/fixtures.js';
import { openListener } from '../helpers/listen.js';
import { modernPost } from '../helpers/protocol.js';
import { catalogQuery, MCP_URL, openSession, openStream, publish } from '../helpers/worker.js';

beforeAll(async () => {
  await publish(FIXTURE_PROMPTS);
  await flushFeed();
});

/** The last generation staged: the Worker's clock moves only at I/O, so two stagings may read the same ms. */
let staged = 0;

/** A new generation whose snapshot only its own key holds (head and `catalog/generation` stay old). */
async function stageUnseen(): Promise<{ generation: number; name: string }> {
  const head = (await env.PROMPTS.get<CatalogSnapshot>(KV_KEYS.head, 'json'))!;
  const generation = (staged = Math.max(Date.now(), head.generation + 1, staged + 1));
  const name = `fresh-${generation}`;
  const prompt = { name, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: name } }] };
  const snap: CatalogSnapshot = { ...head, generation, prompts: [...head.prompts, prompt] };
  await env.PROMPTS.put(KV_KEYS.snapshot(generation), JSON.stringify(snap));
  return { generation, name };
}

/** Announces a generation whose snapshot only its own key holds; resolves the name of the prompt it adds. */
async function announceUnseen(): Promise<string> {
  const { generation, name } = await stageUnseen();
  await feedStub().publish({ kind: 'prompts_list_changed', generation });
  await flushFeed();
  return name;
}

/**
 * This isolate's catalog generation after a refresh of its own (refreshMs 0: every read starts one
 * unless one is under way, which an earlier request may have started: that one ends first).
 */
async function servedAfterRefresh(): Promise<number> {
  let ours: Promise<unknown> | undefined;
  await waitFor(() => {
    peekCatalog(
      catalogQuery(0, (p) => {
        ours = p;
      }),
    );
    return ours !== undefined;
  }, 'a refresh of its own');
  await ours;
  return peekCatalog(catalogQuery(Number.MAX_SAFE_INTEGER, () => undefined))!.generation;
}

const COLO = originOf(MCP_URL);

const textOf = (result: { messages?: { content: { text?: string } }[] }) => result.messages?.[0]?.content.text;

/** A legacy session whose GET stream has just announced an unseen generation. */
async function announcedOnLegacyStream() {
  const s = await openSession();
  const stream = await openStream(s);
  await stream.next(); // retry
  await stream.next(); // priming
  const name = await announceUnseen();
  expect((await stream.nextMessage()).message.method).toBe('notifications/prompts/list_changed');
  return { s, stream, name };
}

describe('after a list_changed, the client is served the catalog it announced', () => {
  it('on a legacy GET stream', async () => {
    const { s, stream, name } = await announcedOnLegacyStream();
    const got = await s.call('prompts/get', { name });
    expect(got.body.error).toBeUndefined();
    expect(textOf(got.body.result)).toBe(name);
    await stream.close();
  });

  it('on a 2026-07-28 listen stream', async () => {
    const listener = await openListener();
    const name = await announceUnseen();
    expect((await listener.stream.nextMessage()).message.method).toBe('notifications/prompts/list_changed');
    const res = await SELF.fetch(MCP_URL, modernPost('prompts/get', { name }).init);
    const body = await res.json<{ error?: unknown; result: { messages?: { content: { text?: string } }[] } }>();
    expect(body.error).toBeUndefined();
    expect(textOf(body.result)).toBe(name);
    await listener.stream.close();
  });
});

describe('the other isolates of the colo', () => {
  it('are told the generation by the stream that announced it', async () => {
    const { stream, name } = await announcedOnLegacyStream();
    const generation = Number(name.slice('fresh-'.length));
    await waitFor(async () => (await readAnnounced(COLO)) === generation, 'the colo knows the announced generation');
    expect(await readAnnounced(COLO)).toBe(generation);
    await stream.close();
  });

  it('load an announced generation at their next refresh, before KV names it', async () => {
    await servedAfterRefresh(); // whatever KV names now
    const { generation } = await stageUnseen();
    // KV's generation key still names the old catalog: a refresh alone does not find the new one.
    expect(await servedAfterRefresh()).toBeLessThan(generation);
    await writeAnnounced(COLO, generation);
    expect(await servedAfterRefresh()).toBe(generation);
  });

  it('still load what KV names when an announced generation cannot be read', async () => {
    await servedAfterRefresh(); // whatever KV names now
    const { generation } = await stageUnseen();
    await env.PROMPTS.put(KV_KEYS.generation, String(generation));
    // Announced, but with no snapshot anywhere: a namespace whose generations started over.
    await writeAnnounced(COLO, generation + 1);
    expect(await servedAfterRefresh()).toBe(generation);
  });

  it('never see the announced generation go back', async () => {
    const { generation } = await stageUnseen();
    await writeAnnounced(COLO, generation);
    await writeAnnounced(COLO, generation - 1);
    expect(await readAnnounced(COLO)).toBe(generation);
  });
});

describe('an isolate that sat idle', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** A generation KV names (and its snapshot), which this isolate, just refreshed, does not serve yet. */
  async function publishedUnseen(): Promise<{ generation: number; name: string }> {
    await servedAfterRefresh();
    const unseen = await stageUnseen();
    await env.PROMPTS.put(KV_KEYS.generation, String(unseen.generation));
    return unseen;
  }

  it('waits for its overdue check, and serves the generation KV names', async () => {
    const refreshMs = 200;
    const { generation } = await publishedUnseen();
    await sleep(overdueMs(refreshMs) + 100);
    const background: Promise<unknown>[] = [];
    const q = catalogQuery(refreshMs, (p) => background.push(p));
    expect(peekCatalog(q), 'an overdue isolate has nothing to serve without asking').toBeUndefined();
    expect((await currentCatalog(q)).generation).toBe(generation);
    expect(background).toHaveLength(1);
  });

  it("answers a client's list with the prompts KV names (CATALOG_REFRESH_MS 0 here: overdue after 1 s)", async () => {
    const list = async () => {
      const res = await SELF.fetch(MCP_URL, modernPost('prompts/list', {}).init);
      const body = await res.json<{ result: { prompts: { name: string }[] } }>();
      return body.result.prompts.map((p) => p.name);
    };
    const { name } = await publishedUnseen();
    await sleep(overdueMs(0) + 100);
    expect(await list()).toContain(name);
  });

  it('serves what it holds within two intervals, and checks in the background', async () => {
    const refreshMs = 1_000;
    const { generation } = await publishedUnseen();
    await sleep(refreshMs + 100);
    const background: Promise<unknown>[] = [];
    const q = catalogQuery(refreshMs, (p) => background.push(p));
    const held = peekCatalog(q);
    expect(held?.generation).toBeLessThan(generation);
    expect(background).toHaveLength(1);
    await background[0];
    expect(peekCatalog(q)?.generation).toBe(generation);
  });
});
