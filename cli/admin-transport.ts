/**
 * How the CLI talks to the admin API: one authenticated request whose answer is checked
 * (answer.ts), and the paged reads (a listing from one catalog generation, a history oldest
 * first). api.ts names the endpoints on top of it.
 */
import { answerOf } from './answer.js';
import { ANSWERS, CliError, UsageError, type Shape } from './api-types.js';
import { send, type RetryOptions } from './http.js';

/** Reads of a paged listing before giving up on a catalog that keeps changing under it. */
const LIST_ATTEMPTS = 5;

/** Why `token` cannot be sent as it is, or undefined; never the token itself, which would then be printed. */
function malformed(token: string): string | undefined {
  const codes = [...token].map((c) => c.codePointAt(0)!);
  if (codes.some((c) => c === 0x0a || c === 0x0d)) return 'it holds a line break';
  if (codes.some((c) => c < 0x20 || c === 0x7f)) return 'it holds a control character';
  if (codes.some((c) => c > 0x7f)) return 'it holds a character that is not ASCII';
  // fetch would trim it, and send another token than the one given.
  if (/^\s|\s$/.test(token)) return 'it starts or ends with a space';
  return undefined;
}

/** The gateway's URL, checked before anything is sent; said without its text, which may hold a password. */
function gatewayUrl(baseUrl: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    // Said below, without the text.
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError('the gateway URL (--url or PROMPTGATE_URL) must be an http:// or https:// URL');
  if (url.username || url.password)
    throw new UsageError(
      'the gateway URL (--url or PROMPTGATE_URL) holds a user name or password: leave it out (the token goes in --token)',
    );
  return url;
}

export class AdminTransport {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    /** How a 429 is waited out (http.ts); the defaults are the CLI's, tests shorten them. */
    private readonly retry: RetryOptions = {},
  ) {
    gatewayUrl(baseUrl);
    const why = malformed(token);
    if (why)
      throw new UsageError(
        `the token (--token or PROMPTGATE_TOKEN) is malformed: ${why}, which an HTTP header cannot carry as it is`,
      );
  }

  /**
   * `path`'s answer, holding what `shape` says (answer.ts); a failure is a CliError naming the request.
   * `undo`: part of undoing an interrupted command, sent and read whole after a signal (interrupt.ts).
   */
  protected async call<T>(method: string, path: string, shape: Shape, body?: unknown, undo = false): Promise<T> {
    const json = body === undefined ? undefined : JSON.stringify(body);
    const res = await this.send(method, path, json, 'application/json', undo);
    return answerOf<T>(res, `${method} ${path}`, shape);
  }

  /** The bare response, for bytes; `undo`: the undoing of an interrupted command (interrupt.ts). */
  protected raw(method: string, path: string, body?: Uint8Array, undo = false): Promise<Response> {
    return this.send(method, path, body, 'application/octet-stream', undo);
  }

  private send(method: string, path: string, body: string | Uint8Array | undefined, type: string, undo = false) {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers['content-type'] = type;
    return send(new URL(path, this.baseUrl), { method, headers, body, undo }, this.retry);
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
          ANSWERS[key],
        );
        moved ||= generation !== undefined && page.generation !== generation;
        generation = page.generation;
        out.push(...page[key]);
        after = page.next ?? undefined;
      } while (after !== undefined && !moved);
      if (!moved) return out;
      if (attempt === LIST_ATTEMPTS)
        throw new CliError(`the catalog changed while it was read ${LIST_ATTEMPTS} times over; try again`);
    }
  }

  /**
   * Every version's facts, oldest first: the gateway answers a history a page at a time, newest page
   * first; `facts=1` leaves the records out, which may add up to gigabytes over a prompt's life.
   */
  protected async allPages<R>(path: string): Promise<R[]> {
    const pages: R[][] = [];
    let before: number | undefined;
    do {
      const page = await this.call<{ history: R[]; next?: number }>(
        'GET',
        `${path}?limit=1000&facts=1${before === undefined ? '' : `&before=${before}`}`,
        ANSWERS.history,
      );
      pages.unshift(page.history);
      before = page.next ?? undefined;
    } while (before !== undefined);
    return pages.flat();
  }
}
