/**
 * One isolate's usage counts between two flushes: a Map from the counted tuple to its row, so a
 * repeated call costs one key string and one Map increment. Bounded: past MAX_ROWS distinct rows
 * (clients and unknown prompt names are chosen by callers) new tuples fold into `(other)`.
 */
import type { ErrorTuple, UsageBatch, UsageTuple } from './store.js';

/** Distinct usage rows one tally holds before new ones fold into `(other)`. */
export const MAX_ROWS = 2_000;
/** Stands for the prompts and clients folded away once a tally is full. */
export const OTHER = '(other)';

export class Tally {
  readonly #usage = new Map<string, UsageTuple>();
  readonly #errors = new Map<string, ErrorTuple>();

  get empty(): boolean {
    return this.#usage.size === 0 && this.#errors.size === 0;
  }

  /**
   * +n under one tuple. The key is unambiguous without escaping: method, era and outcome come from
   * fixed sets without `|`, and the two free-form fields are prefixed by their lengths.
   */
  add(hour: number, method: string, prompt: string, client: string, era: string, outcome: string, n = 1): void {
    const key = `${hour}|${method}|${era}|${outcome}|${prompt.length}|${prompt}|${client}`;
    const row = this.#usage.get(key);
    if (row) row[6] += n;
    else if (this.#usage.size < MAX_ROWS) this.#usage.set(key, [hour, method, prompt, client, era, outcome, n]);
    else if (prompt !== OTHER || client !== OTHER) this.add(hour, method, OTHER, OTHER, era, outcome, n);
    else this.#usage.set(key, [hour, method, prompt, client, era, outcome, n]);
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
    return { usage: [...this.#usage.values()], errors: [...this.#errors.values()] };
  }

  /** Adds a batch back (a flush that failed): nothing counted is lost. */
  merge(batch: UsageBatch): void {
    for (const [hour, method, prompt, client, era, outcome, n] of batch.usage)
      this.add(hour, method, prompt, client, era, outcome, n);
    for (const [hour, cls, n] of batch.errors) this.error(hour, cls, n);
  }
}
