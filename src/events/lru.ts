// k8s.io/utils/lru's Cache, as tools/record's caches use it: a fixed number of entries, the
// least recently used (added or got) evicted first. A Map keeps insertion order, so moving an
// entry to the end on every use makes its first key the least recently used.
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  add(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.size) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get length(): number {
    return this.entries.size;
  }
}
