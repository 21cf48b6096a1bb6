// The exporter's self-description: what build is running and when its readiness clock started.
import { Gauge, type Registry, type RegistryContentType } from "prom-client";
import { seconds } from "./units.js";

export interface BuildInfo {
  version: string;
  revision: string;
}

export function registerBuildInfo(
  registry: Registry<RegistryContentType>,
  build: BuildInfo,
  startTime: () => number,
): void {
  const registers = [registry];
  new Gauge({
    name: "podconfig_build_info",
    help: "A metric with a constant '1' value labelled by podconfig-exporter's version and revision and its Node.js version.",
    labelNames: ["version", "revision", "nodejs_version"],
    registers,
  }).set({ version: build.version, revision: build.revision, nodejs_version: process.version }, 1);
  new Gauge({
    name: "podconfig_start_time_seconds",
    help: "Unix time the readiness clock started, the origin of podconfig_time_to_ready_seconds.",
    registers,
    collect() {
      this.set(seconds(startTime()));
    },
  });
}
