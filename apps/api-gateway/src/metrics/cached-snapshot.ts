/**
 * The last value `fetch` gave, reused for `ttlMs`: however often /metrics is scraped, the registry is asked at
 * most once per `ttlMs`, and scrapes that arrive while it is being asked share that one request.
 */
export class CachedSnapshot<Value> {
  private cached: { value: Value; fetchedAt: number } | null = null;
  private pending: Promise<Value> | null = null;

  constructor(
    private readonly fetch: () => Promise<Value>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<Value> {
    if (this.cached !== null && this.now() - this.cached.fetchedAt < this.ttlMs) return Promise.resolve(this.cached.value);
    this.pending ??= this.fetch()
      .then((value) => {
        this.cached = { value, fetchedAt: this.now() };
        return value;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }
}
