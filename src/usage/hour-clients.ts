/**
 * The client labels each hour of usage keeps (UsageStore). A label is `name/version` as the client
 * sent it in `initialize`, so a client that names itself anew on every session could otherwise add
 * rows without end: every isolate's tally is bounded, but the store sees every isolate, every flush.
 * Past `max` distinct labels in one hour, further ones are counted as `(other)`: the counts are kept,
 * only the label is folded. Known labels of the last few hours are kept in memory, loaded from the
 * store once per hour and instance.
 */

/** Stands for the prompts and clients folded away once a tally or an hour is full. */
export const OTHER = '(other)';
/** Hours whose labels are kept in memory: a flush may still carry the hour before the current one. */
const HOURS_KEPT = 3;

export class HourClients {
  readonly #hours = new Map<number, Set<string>>();

  constructor(
    private readonly max: number,
    /** The labels already stored for an hour. */
    private readonly load: (hour: number) => string[],
  ) {}

  /** The label to count a call of `client` under, in `hour`. */
  admit(hour: number, client: string): string {
    const known = this.#labels(hour);
    if (client === OTHER || known.has(client)) return client;
    if (known.size - (known.has(OTHER) ? 1 : 0) >= this.max) return OTHER;
    known.add(client);
    return client;
  }

  /** Drops what is held (a write was rolled back: the store is the truth again). */
  forget(): void {
    this.#hours.clear();
  }

  #labels(hour: number): Set<string> {
    let known = this.#hours.get(hour);
    if (known) return known;
    known = new Set(this.load(hour));
    this.#hours.set(hour, known);
    if (this.#hours.size > HOURS_KEPT) this.#hours.delete(Math.min(...this.#hours.keys()));
    return known;
  }
}
