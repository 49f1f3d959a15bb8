/**
 * What one hour of usage may still add (UsageStore): client labels and rows. A label is
 * `name/version` as the client sent it in `initialize`, so a client that names itself anew on every
 * session could otherwise add rows without end: every isolate's tally is bounded, but the store sees
 * every isolate, every flush. Past `maxLabels` distinct labels, or `maxRows` rows, in one hour, a call
 * that would need a new label or row is counted under client `(other)`: the count and its prompt are
 * kept, only the label is folded. Prompt names are the catalog's (usage/count.ts), so the folded rows
 * are bounded by the catalog. What is known of the last few hours is kept in memory, loaded from the
 * store once per hour and instance.
 */

/** Stands for the prompts and clients folded away once a tally or an hour is full. */
export const OTHER = '(other)';
/** Hours kept in memory: a flush may still carry the hour before the current one. */
const HOURS_KEPT = 3;

/** What the store holds of one hour. */
export interface StoredHour {
  readonly labels: string[];
  readonly rows: number;
}

interface Hour {
  readonly labels: Set<string>;
  rows: number;
}

export class HourClients {
  readonly #hours = new Map<number, Hour>();

  constructor(
    private readonly maxLabels: number,
    private readonly maxRows: number,
    private readonly load: (hour: number) => StoredHour,
  ) {}

  /**
   * The label to count a call of `client` under, in `hour`. `stored` says whether the hour has the
   * call's row under this client already (asked only once the hour's rows are full).
   */
  admit(hour: number, client: string, stored: () => boolean): string {
    const h = this.#hour(hour);
    if (client === OTHER) return client;
    if (h.rows >= this.maxRows) return h.labels.has(client) && stored() ? client : OTHER;
    if (h.labels.has(client)) return client;
    if (h.labels.size - (h.labels.has(OTHER) ? 1 : 0) >= this.maxLabels) return OTHER;
    h.labels.add(client);
    return client;
  }

  /** One row was added to `hour`. */
  added(hour: number, client: string): void {
    const h = this.#hour(hour);
    h.rows += 1;
    h.labels.add(client);
  }

  /** Drops what is held (a write was rolled back: the store is the truth again). */
  forget(): void {
    this.#hours.clear();
  }

  #hour(hour: number): Hour {
    let h = this.#hours.get(hour);
    if (h) return h;
    const stored = this.load(hour);
    h = { labels: new Set(stored.labels), rows: stored.rows };
    this.#hours.set(hour, h);
    if (this.#hours.size > HOURS_KEPT) this.#hours.delete(Math.min(...this.#hours.keys()));
    return h;
  }
}
