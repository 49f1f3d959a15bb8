/**
 * How the CLI talks to the admin API: one authenticated request with a readable error, and the
 * paged reads (a listing from one catalog generation, a history oldest first). api.ts names the
 * endpoints on top of it.
 */
import type { Issue } from '../src/catalog/types.js';
import { CliError } from './api-types.js';
import { send, type RetryOptions } from './http.js';

/** Reads of a paged listing before giving up on a catalog that keeps changing under it. */
const LIST_ATTEMPTS = 5;

export class AdminTransport {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    /** How a 429 is waited out (http.ts); the defaults are the CLI's, tests shorten them. */
    private readonly retry: RetryOptions = {},
  ) {}

  protected async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await send(
      new URL(path, this.baseUrl),
      {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      this.retry,
    );
    const json = (await res.json().catch(() => null)) as { error?: { message: string; issues?: Issue[] } } | null;
    if (!res.ok) {
      const issues = json?.error?.issues?.map((i) => `\n  ${i.path}: ${i.message}`).join('') ?? '';
      throw new CliError(
        `${method} ${path} failed (HTTP ${res.status}): ${json?.error?.message ?? res.statusText}${issues}`,
      );
    }
    return json as T;
  }

  protected raw(method: string, path: string, body?: Uint8Array): Promise<Response> {
    return send(
      new URL(path, this.baseUrl),
      {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/octet-stream' }),
        },
        body,
      },
      this.retry,
    );
  }

  /**
   * Every page of a listing, read from one catalog generation: a publish between two pages would
   * show a renamed prompt twice or not at all, so the read starts again when the generation moves.
   */
  protected async listed<R>(path: string, key: 'prompts' | 'skills'): Promise<R[]> {
    for (let attempt = 1; ; attempt++) {
      const out: R[] = [];
      let after: string | undefined;
      let generation: number | undefined;
      let moved = false;
      do {
        const page = await this.call<Record<typeof key, R[]> & { next?: string; generation: number }>(
          'GET',
          after === undefined ? path : `${path}?after=${encodeURIComponent(after)}`,
        );
        moved ||= generation !== undefined && page.generation !== generation;
        generation = page.generation;
        out.push(...page[key]);
        after = page.next;
      } while (after !== undefined && !moved);
      if (!moved) return out;
      if (attempt === LIST_ATTEMPTS)
        throw new CliError(`the catalog changed while it was read ${LIST_ATTEMPTS} times over; try again`);
    }
  }

  /** Every version, oldest first: the gateway answers a history a page at a time, newest page first. */
  protected async allPages<R>(path: string): Promise<R[]> {
    const pages: R[][] = [];
    let before: number | undefined;
    do {
      const page = await this.call<{ history: R[]; next?: number }>(
        'GET',
        `${path}?limit=1000${before === undefined ? '' : `&before=${before}`}`,
      );
      pages.unshift(page.history);
      before = page.next;
    } while (before !== undefined);
    return pages.flat();
  }
}
