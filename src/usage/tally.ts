/**
 * One isolate's usage counts between two flushes. A repeat call allocates nothing: two Map lookups
 * (prompt, then client name) and a scan of the few rows under them, comparing fields, then one
 * increment; strings are built only for a new row. Bounded: past MAX_ROWS distinct rows, a new
 * tuple's client folds into `(other)` (clients name themselves). Its prompt is kept: prompt names are
 * the catalog's (usage/count.ts), so the folded rows are bounded by the catalog.
 */
import { OTHER } from './hour-clients.js';
import type { ErrorTuple, UsageBatch, UsageTuple } from './store.js';

/** Distinct usage rows one tally holds before new ones count under client `(other)`. */
export const MAX_ROWS = 2_000;
/** The client of a call whose client did not name itself. */
export const UNKNOWN_CLIENT = 'unknown';

/** One row and the fields it is found by (the client's version apart from its label). */
class Row {
  constructor(
    readonly hour: number,
    readonly method: string,
    /** undefined for a client that did not name itself and for the `(other)` fold. */
    readonly version: string | undefined,
    readonly era: string,
    readonly outcome: string,
    readonly tuple: UsageTuple,
  ) {}
}

export class Tally {
  /** prompt → client name (undefined: unknown) → rows. */
  readonly #usage = new Map<string, Map<string | undefined, Row[]>>();
  #rows = 0;
  readonly #errors = new Map<string, ErrorTuple>();

  get empty(): boolean {
    return this.#rows === 0 && this.#errors.size === 0;
  }

  /**
   * +n calls. `client` is the client's name and `version` its version (the label is `name/version`);
   * a client that did not name itself is undefined.
   */
  add(
    hour: number,
    method: string,
    prompt: string,
    client: string | undefined,
    version: string | undefined,
    era: string,
    outcome: string,
    n = 1,
  ): void {
    let byClient = this.#usage.get(prompt);
    const rows = byClient?.get(client);
    if (rows)
      for (const r of rows)
        if (r.hour === hour && r.method === method && r.version === version && r.era === era && r.outcome === outcome) {
          r.tuple[6] += n;
          return;
        }
    if (this.#rows >= MAX_ROWS && client !== OTHER)
      return this.add(hour, method, prompt, OTHER, undefined, era, outcome, n);
    const label = client === undefined ? UNKNOWN_CLIENT : version === undefined ? client : `${client}/${version}`;
    const row = new Row(hour, method, version, era, outcome, [hour, method, prompt, label, era, outcome, n]);
    if (rows) rows.push(row);
    else {
      if (!byClient) this.#usage.set(prompt, (byClient = new Map<string | undefined, Row[]>()));
      byClient.set(client, [row]);
    }
    this.#rows += 1;
  }

  /** +n failed requests of one class. */
  error(hour: number, cls: string, n = 1): void {
    const key = `${hour}|${cls}`;
    const row = this.#errors.get(key);
    if (row) row[2] += n;
    else this.#errors.set(key, [hour, cls, n]);
  }

  /** Everything counted, as one store call's batch. */
  batch(): UsageBatch {
    const usage: UsageTuple[] = [];
    for (const byClient of this.#usage.values())
      for (const rows of byClient.values()) for (const r of rows) usage.push(r.tuple);
    return { usage, errors: [...this.#errors.values()] };
  }
}
