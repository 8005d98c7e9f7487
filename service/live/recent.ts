/**
 * The values of the `max` keys asked for last, each made on first use: what a cache of recordings keeps in
 * memory stays bounded however many recordings are asked for (a recording asked for again after it was dropped
 * is read from disk once more).
 */
export class Recent<V> {
  private readonly values = new Map<string, V>();

  constructor(
    private readonly max: number,
    private readonly make: () => V,
  ) {}

  get(key: string): V {
    const value = this.values.get(key) ?? this.make();
    this.values.delete(key);
    this.values.set(key, value);
    if (this.values.size > this.max) this.values.delete(this.values.keys().next().value!);
    return value;
  }

  delete(key: string): void {
    this.values.delete(key);
  }
}
