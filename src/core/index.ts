export { CountsBySourceAndOp } from "./counts.js";
export * from "./deps.js";
export { PodConfig, type PodConfigOptions, type RegisteredSource } from "./pod_config.js";
export { PodManager } from "./pod_manager.js";
export {
  type Readiness,
  type ReadinessParts,
  readiness,
  type SourceReadiness,
} from "./readiness.js";
export { ReferenceSyncHandler } from "./reference_handler.js";
export { type PodChange, podsDifferSemantically } from "./semantics.js";
export { type SeenAllSources, SourcesReady } from "./sources_ready.js";
export { type DispatchObservation, SyncLoop, type SyncLoopOptions } from "./sync_loop.js";
export * from "./types.js";
export * from "./version.js";
