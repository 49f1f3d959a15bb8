/**
 * Waiting on live-update events from outside the Worker (the e2e suites): the change feed's
 * progress in GET /status, and an SDK transport's GET stream being attached. Tests count
 * notifications from a known point instead of sleeping for the attach or the start-up fan-out.
 * Runtime-neutral: only fetch and timers.
 */

export interface FeedState {
  /** The generation last fanned out to every stream. */
  published: number;
  /** A change still waiting for its coalescing window or fan-out; null when everything queued is announced. */
  pending: number | null;
}

/** Polls `check` until it holds; fails after `ms` (a bound for a broken run, not a timing assumption). */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function feedState(baseUrl: string): Promise<FeedState> {
  const res = await fetch(`${baseUrl}/status`);
  if (res.status !== 200) throw new Error(`GET /status: HTTP ${res.status}`);
  return ((await res.json()) as { feed: FeedState }).feed;
}

/**
 * Waits until every change queued so far has been fanned out (its notifications handed to every
 * stream attached at the time). A stream attached after this sees only later changes.
 */
export async function feedQuiet(baseUrl: string, ms = 20_000): Promise<FeedState> {
  let state: FeedState = { published: 0, pending: null };
  let lastFailure: unknown;
  // A probe whose connection the dev server dropped (a keep-alive socket closed under it) is asked
  // again; one that never answers fails the wait, naming why.
  const quiet = async () => {
    try {
      state = await feedState(baseUrl);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      lastFailure = e.cause ?? e;
      return false;
    }
    return state.pending === null;
  };
  try {
    await waitUntil(quiet, 'the change feed to announce every queued change', ms);
  } catch (e) {
    throw lastFailure === undefined
      ? e
      : new Error(`${(e as Error).message}; the last probe failed: ${String(lastFailure)}`);
  }
  return state;
}

/**
 * A fetch for an SDK client transport that reports when the transport's standalone GET stream is
 * open. The gateway answers that GET only once the session object holds the stream, so once
 * `attached()` resolves every fan-out reaches this client.
 */
export function streamWatch(inner: (url: string | URL, init?: RequestInit) => Promise<Response> = fetch) {
  let resolve!: () => void;
  const opened = new Promise<void>((r) => (resolve = r));
  /** Resolves once the GET stream is open; fails after `ms` (a bound for a broken run). */
  const attached = async (ms = 20_000): Promise<void> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no GET stream within ${ms} ms`)), ms)),
    );
    try {
      await Promise.race([opened, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  const watched = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await inner(url, init);
    if (
      (init?.method ?? 'GET') === 'GET' &&
      res.status === 200 &&
      res.headers.get('content-type')?.startsWith('text/event-stream')
    )
      resolve();
    return res;
  };
  return { fetch: watched, attached };
}
