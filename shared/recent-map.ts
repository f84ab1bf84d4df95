// A map bounded by count that keeps what was used most recently: a read moves its entry to the back,
// and past the bound the entry at the front (the least recently used) goes. For what a process keeps of
// values that never go stale under their key (a block under its hash, a parsed query under its text).

export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly bound: number) {}

  /** The value kept under `key`, now the most recently used; undefined when none is. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps `value` as the most recently used, letting the least recently used go past the bound. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.bound) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
