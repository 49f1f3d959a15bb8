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
