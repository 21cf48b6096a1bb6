// The kubelet config_test.go harness: a PodConfig with one registered "test" source and
// expectPodUpdate / expectNoPodUpdate. "No update" is read off the queue after send()
// resolved — every update a merge emits is on the queue by then — so it never races.
import assert from "node:assert/strict";
import type { EventRecorder } from "../../src/core/deps.js";
import { deepEqual } from "../../src/core/json.js";
import { PodConfig } from "../../src/core/pod_config.js";
import { podsDifferSemantically } from "../../src/core/semantics.js";
import type {
  NotificationMode,
  Pod,
  PodOperation,
  PodUpdate,
  SourceChannel,
} from "../../src/core/types.js";
import { ManualClock } from "../support/pods.js";

export const TestSource = "test";

export function podUpdate(op: PodOperation, source: string, ...pods: Pod[]): PodUpdate {
  return { op, source, pods };
}

export interface RecordedEvent {
  reason: string;
  message: string;
}

export interface Tester {
  config: PodConfig;
  channel: SourceChannel;
  clock: ManualClock;
  events: RecordedEvent[];
  expectPodUpdate(...expected: PodUpdate[]): Promise<void>;
  expectNoPodUpdate(): void;
  /** Takes the next update, failing if none is queued. */
  take(): Promise<PodUpdate>;
}

export function createPodConfigTester(mode: NotificationMode = "incremental"): Tester {
  const clock = new ManualClock();
  const events: RecordedEvent[] = [];
  const recorder: EventRecorder = {
    warning: (_pod, reason, message) => events.push({ reason, message }),
  };
  const config = new PodConfig({ version: "1.32", mode, clock, recorder });
  const channel = config.channel(TestSource);
  const updates = config.updates();

  async function take(): Promise<PodUpdate> {
    assert.ok(config.queueLength > 0, "expected an update on the queue, found none");
    const next = await updates.next();
    assert.equal(next.done, false);
    return next.value as PodUpdate;
  }

  function expectNoPodUpdate(): void {
    assert.equal(config.queueLength, 0, "expected no update on the queue");
  }

  async function expectPodUpdate(...expected: PodUpdate[]): Promise<void> {
    for (const want of expected) assertSameUpdate(await take(), want);
    expectNoPodUpdate();
  }

  return { config, channel, clock, events, expectPodUpdate, expectNoPodUpdate, take };
}

const byNamespace = (a: Pod, b: Pod): number =>
  (a.metadata.namespace ?? "").localeCompare(b.metadata.namespace ?? "");

/** Op and source exactly; pods semantically (local annotations aside) and by status. */
export function assertSameUpdate(got: PodUpdate, want: PodUpdate): void {
  assert.equal(got.op, want.op, `op of ${JSON.stringify(got)}`);
  assert.equal(got.source, want.source);
  assert.equal(got.pods.length, want.pods.length, `pods of ${got.op}: ${JSON.stringify(got.pods)}`);
  const gotPods = [...got.pods].sort(byNamespace);
  const wantPods = [...want.pods].sort(byNamespace);
  wantPods.forEach((pod, i) => {
    const other = gotPods[i] as Pod;
    assert.ok(
      !podsDifferSemantically(pod, other) && deepEqual(pod.status, other.status),
      `expected ${JSON.stringify(pod)}, got ${JSON.stringify(other)}`,
    );
  });
}

/** Takes every update on the queue: all a send emitted is there once the send resolved. */
export async function drainUpdates(config: PodConfig): Promise<PodUpdate[]> {
  const updates = config.updates();
  const out: PodUpdate[] = [];
  while (config.queueLength > 0) out.push((await updates.next()).value as PodUpdate);
  return out;
}
