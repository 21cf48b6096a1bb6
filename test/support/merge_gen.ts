// Random op sequences across sources for the merge: each step is one source's update (an op and
// pods up to 1.35; from 1.36 the source's full set, no op). Pods come from a small pool of UIDs
// and names, so that steps add, change, reconcile, gracefully delete and remove the same pods,
// and send duplicate names within one update. Pods are written as Go's encoding/json marshals a
// v1.Pod (what every source sends after decoding), so the two sides start from equal values;
// that form changes between releases (an unset creationTimestamp is written as null, or left
// out), so the caller says which it is (GoPodForm, asked of the release's own code).
import type { KubeletMinor } from "../../src/core/version.js";
import { sourceUpdateHasOp } from "../../src/core/version.js";
import type { Rng } from "./rng.js";

type JsonObject = { [key: string]: unknown };

export interface MergeStep {
  source: string;
  op: "SET" | "ADD" | "UPDATE" | "DELETE" | "REMOVE";
  pods: JsonObject[];
}

/** How the release's encoding/json writes what the pool's pods leave unset. */
export interface GoPodForm {
  nullCreationTimestamp: boolean;
}

export interface OpSequence {
  mode: "incremental" | "snapshot" | "snapshotAndUpdates";
  sources: string[];
  steps: MergeStep[];
}

const times = ["2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z"];

/** A pod of the pool: uid, name and namespace from small sets, everything else varied. */
function pooledPod(rng: Rng, form: GoPodForm): JsonObject {
  const n = rng.int(0, 5);
  const metadata: JsonObject = {
    name: `pod-${rng.chance(0.85) ? n % 4 : rng.int(0, 3)}`,
    namespace: rng.pick(["a", "b"]),
    uid: `uid-${n}`,
  };
  if (form.nullCreationTimestamp) metadata.creationTimestamp = null;
  if (rng.chance(0.4)) metadata.labels = { app: rng.pick(["x", "y"]) };
  const annotations: JsonObject = {};
  if (rng.chance(0.3)) annotations.note = rng.pick(["p", "q"]);
  if (rng.chance(0.1)) annotations["kubernetes.io/config.mirror"] = rng.pick(["m1", "m2"]);
  if (rng.chance(0.1)) annotations["kubernetes.io/config.source"] = rng.pick(["file", "api"]);
  if (rng.chance(0.05)) annotations["kubernetes.io/config.seen"] = "2025-01-01T00:00:00Z";
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  if (rng.chance(0.15)) metadata.deletionTimestamp = rng.pick(times);
  if (rng.chance(0.1)) metadata.deletionGracePeriodSeconds = rng.pick([0, 30]);
  if (rng.chance(0.3)) metadata.generation = rng.int(1, 3);
  const container: JsonObject = { name: "c", image: rng.pick(["v1", "v2"]), resources: {} };
  const spec: JsonObject = { containers: [container] };
  if (rng.chance(0.2)) spec.volumes = [{ name: "v", emptyDir: {} }];
  if (rng.chance(0.2)) spec.nodeName = "node-a";
  const status: JsonObject = {};
  if (rng.chance(0.4)) status.phase = rng.pick(["Pending", "Running", "Succeeded"]);
  if (rng.chance(0.15))
    status.conditions = [
      {
        type: "Ready",
        status: rng.pick(["True", "False"]),
        lastProbeTime: null,
        lastTransitionTime: rng.pick(times),
      },
    ];
  return { metadata, spec, status };
}

/** One op sequence for `version`: 1–3 sources, up to 20 steps. */
export function opSequence(rng: Rng, version: KubeletMinor, form: GoPodForm): OpSequence {
  const hasOps = sourceUpdateHasOp(version);
  const all = ["file", "http", "api"];
  const sources = all.filter(() => rng.chance(0.6));
  if (sources.length === 0) sources.push(rng.pick(all));
  const mode = hasOps
    ? rng.pick(["incremental", "incremental", "snapshot", "snapshotAndUpdates"] as const)
    : "incremental";
  const steps: MergeStep[] = [];
  for (let i = rng.int(1, 20); i > 0; i--) {
    // From 1.36 an update has no op: one is sent all the same, and both sides must ignore it.
    const op = rng.pick(["SET", "SET", "SET", "ADD", "UPDATE", "DELETE", "REMOVE"] as const);
    const pods = Array.from({ length: rng.int(0, 4) }, () => pooledPod(rng, form));
    steps.push({ source: rng.pick(sources), op, pods });
  }
  return { mode, sources, steps };
}
