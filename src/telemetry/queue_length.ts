// The bounded queue between pod storage and the sync loop, read at scrape time.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";

export function registerQueueLength(
  registry: Registry<RegistryContentType>,
  queueLength: () => number,
): void {
  new Gauge({
    name: "podconfig_queue_length",
    help: "Updates emitted by pod storage and waiting on the bounded queue for the sync loop.",
    registers: [registry],
    collect() {
      this.set(queueLength());
    },
  });
}
