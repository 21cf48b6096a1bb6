// Times compare as times (#8 item 5): the kubelet decodes a metav1.Time with Go's
// time.Parse(time.RFC3339, s) and compares the decoded instants (reflect.DeepEqual after
// .Local()), to the nanosecond. So "Z" and "+00:00", an offset, a fraction of zeros, or a
// comma for the point spell the same deletionTimestamp or status time; another instant differs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { PodConfig } from "../../src/core/pod_config.js";
import { parseTime, sameInstant } from "../../src/core/time.js";
import type { Pod } from "../../src/core/types.js";
import { drainUpdates } from "./harness.js";

interface Instant {
  seconds: number;
  nanos: number;
}

const instantArb: fc.Arbitrary<Instant> = fc.record({
  // 0001-01-01 .. 9998-12-31, with the common ones (1970-2100) weighted in.
  seconds: fc.oneof(
    fc.integer({ min: 0, max: 4_102_444_800 }),
    fc.integer({ min: -62_135_596_800 + 86_400, max: 253_370_764_800 - 86_400 }),
  ),
  nanos: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999_999_999 })),
});

/** How to spell an instant: zone offset, digits of fraction shown (at least what it needs), separator. */
interface Spelling {
  offsetMinutes: number;
  zulu: boolean;
  extraDigits: number;
  comma: boolean;
}

const spellingArb: fc.Arbitrary<Spelling> = fc.record({
  offsetMinutes: fc.oneof(fc.constant(0), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 })),
  zulu: fc.boolean(),
  extraDigits: fc.nat(3),
  comma: fc.boolean(),
});

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

function spell(
  { seconds, nanos }: Instant,
  { offsetMinutes, zulu, extraDigits, comma }: Spelling,
): string {
  const offset = zulu ? 0 : offsetMinutes;
  const local = new Date((seconds + offset * 60) * 1000);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}`;
  const time = `${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}`;
  const needed = pad(nanos, 9).replace(/0+$/, "");
  const digits = (needed + "0".repeat(extraDigits)).slice(0, 9);
  const fraction = digits === "" ? "" : `${comma ? "," : "."}${digits}`;
  const sign = offset < 0 ? "-" : "+";
  const zone = zulu
    ? "Z"
    : `${sign}${pad(Math.floor(Math.abs(offset) / 60), 2)}:${pad(Math.abs(offset) % 60, 2)}`;
  return `${date}T${time}${fraction}${zone}`;
}

function pod(deletionTimestamp: string, startTime: string): Pod {
  return {
    metadata: { name: "p", namespace: "ns", uid: "u", deletionTimestamp },
    spec: { containers: [{ name: "c", image: "i" }] },
    status: {
      phase: "Running",
      startTime,
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: startTime }],
      containerStatuses: [{ name: "c", state: { running: { startedAt: startTime } } }],
    },
  };
}

describe("times compare as times", () => {
  test("parseTime reads every spelling of an instant back to that instant", () => {
    fc.assert(
      fc.property(instantArb, spellingArb, (instant, spelling) => {
        const { seconds, nanos } = instant;
        assert.deepEqual(
          parseTime(spell(instant, spelling)),
          { seconds, nanos },
          spell(instant, spelling),
        );
      }),
      { numRuns: 2000 },
    );
  });

  test("merge: a respelled deletionTimestamp or status time is no change; another instant is", async () => {
    await fc.assert(
      fc.asyncProperty(
        instantArb,
        // Half the time the same instant, respelled; else another one (or the same second).
        fc.oneof(
          fc.constant(undefined),
          instantArb,
          fc.nat(999_999_999).map((nanos) => ({ seconds: 0, nanos })),
        ),
        spellingArb,
        spellingArb,
        async (first, other, spellingA, spellingB) => {
          const second =
            other === undefined
              ? first
              : other.seconds === 0
                ? { seconds: first.seconds, nanos: other.nanos }
                : other;
          const config = new PodConfig({ version: "1.32" });
          const channel = config.channel("api");
          const a = spell(first, spellingA);
          await channel.send({ op: "SET", source: "api", pods: [pod(a, a)] });
          await drainUpdates(config);
          const b = spell(second, spellingB);
          await channel.send({ op: "SET", source: "api", pods: [pod(b, b)] });
          const same = first.seconds === second.seconds && first.nanos === second.nanos;
          assert.deepEqual(
            (await drainUpdates(config)).map((u) => u.op),
            same ? [] : ["DELETE"],
            `${a} -> ${b}`,
          );
          assert.equal(sameInstant(a, b), same);
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("what Go's time.Parse(time.RFC3339) refuses is compared as text", () => {
    for (const text of [
      "2026-02-29T00:00:00Z", // not a leap year
      "2026-13-01T00:00:00Z",
      "2026-01-01T24:00:00Z",
      "2026-01-01T00:60:00Z",
      "2026-01-01T00:00:60Z",
      "2026-01-01t00:00:00Z",
      "2026-01-01T00:00:00z",
      "2026-01-01T00:00:00",
      "2026-01-01T00:00:00+0000",
      "2026-01-01 00:00:00Z",
      "26-01-01T00:00:00Z",
      "2026-01-01T00:00:00.Z",
    ]) {
      assert.equal(parseTime(text), undefined, text);
      assert.equal(sameInstant(text, "2026-01-01T00:00:00Z"), false, text);
      assert.equal(sameInstant(text, text), true, text);
    }
    assert.deepEqual(parseTime("2024-02-29T1:02:03.1234567891Z"), {
      seconds: Date.UTC(2024, 1, 29, 1, 2, 3) / 1000,
      nanos: 123_456_789,
    });
  });
});
