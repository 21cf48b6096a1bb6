// One read of a state per scrape. prom-client calls every collect() of a registry in the same
// synchronous pass of registry.metrics(), so a value cached until the next microtask is shared
// by all of them: the state is assembled once, and every metric of one scrape agrees with the
// others (a source cannot be "ready" in one metric and "not stored" in the next).
export function oncePerScrape<T>(read: () => T): () => T {
  let cached: { value: T } | undefined;
  return () => {
    if (!cached) {
      cached = { value: read() };
      queueMicrotask(() => {
        cached = undefined;
      });
    }
    return cached.value;
  };
}
