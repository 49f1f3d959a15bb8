/**
 * Bounded isolate memos. An isolate lives for many requests, so every memo
 * must have a ceiling: when full, the oldest entry goes first.
 */

export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/** One bounded memo per signing secret, so a rotated secret never honours what the old one vouched for. */
export class PerSecret<V> {
  private readonly bySecret = new Map<string, BoundedMap<string, V>>();

  constructor(private readonly max: number) {}

  for(secret: string): BoundedMap<string, V> {
    let m = this.bySecret.get(secret);
    if (!m) this.bySecret.set(secret, (m = new BoundedMap(this.max)));
    return m;
  }
}

/**
 * A memo of large values, bounded in entries and in total size (`sizeOf` each value): 256 pages of
 * 2 MB would be four times an isolate's 128 MB. When either bound is passed the oldest go first; a
 * value larger than the whole budget is not kept.
 */
export class SizedMap<K, V> {
  private readonly map = new Map<K, V>();
  private used = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxSize: number,
    private readonly sizeOf: (v: V) => number,
  ) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value);
    if (size > this.maxSize) return;
    while (this.map.size >= this.maxEntries || this.used + size > this.maxSize)
      this.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
    this.used += size;
  }

  delete(key: K): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.used -= this.sizeOf(v);
  }

  /** Entries and the total size held (tests and /status-style probes). */
  get stats(): { entries: number; size: number } {
    return { entries: this.map.size, size: this.used };
  }
}
