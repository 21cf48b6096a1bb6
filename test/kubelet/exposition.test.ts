// The reader of the kubelet's text exposition, and what it reads from the kubelet fixtures of
// the checked versions: start time, PLEG, runtime status calls, housekeeping series; unknown
// (never 0) for what is missing or for a version outside the checked range.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import { renderKubeletMetrics } from "../../src/demo/kubelet_exposition.js";
import { ExpositionError, parseExposition } from "../../src/kubelet/exposition.js";
import { readKubeletSignals } from "../../src/kubelet/signals.js";

const fixture = (name: string) =>
  readFile(new URL(`../fixtures/kubelet/${name}`, import.meta.url), "utf8");

describe("parseExposition", () => {
  test("samples by series name with their labels, escapes and special values", () => {
    const text = [
      "# HELP a_total A counter.",
      "# TYPE a_total counter",
      'a_total{path="C:\\\\dir",quote="say \\"hi\\"",nl="x\\ny"} 3 1700000000000',
      "b +Inf",
      "c NaN",
      "d{} -1.5e-3",
      'e{x="1",} 2',
      "",
    ].join("\n");
    const { samples, types } = parseExposition(text);
    assert.deepEqual(samples.get("a_total"), [
      { labels: { path: "C:\\dir", quote: 'say "hi"', nl: "x\ny" }, value: 3 },
    ]);
    assert.equal(samples.get("b")?.[0]?.value, Number.POSITIVE_INFINITY);
    assert.ok(Number.isNaN(samples.get("c")?.[0]?.value));
    assert.equal(samples.get("d")?.[0]?.value, -0.0015);
    assert.deepEqual(samples.get("e")?.[0]?.labels, { x: "1" });
    assert.equal(types.get("a_total"), "counter");
  });

  test("anything else is an error naming the line, never a partial reading", () => {
    for (const [text, line] of [
      ["ok 1\n<html><body>Unauthorized</body></html>\n", 2],
      ["a{x=1} 1\n", 1],
      ['a{x="1" 1\n', 1],
      ["a 0x10\n", 1],
      ["a 1 2 3\n", 1],
      ['a{x="\\q"} 1\n', 1],
      ["ok 1\nok 2\na\n", 3],
      ['{"kind":"Status"}\n', 1],
    ] as const) {
      assert.throws(
        () => parseExposition(text),
        (error: unknown) =>
          error instanceof ExpositionError && error.message.startsWith(`line ${line}:`),
        JSON.stringify(text),
      );
    }
  });
});

describe("readKubeletSignals", () => {
  test("kubelet 1.32 after housekeeping", async () => {
    const signals = readKubeletSignals(parseExposition(await fixture("v1.32-housekept.txt")));
    assert.deepEqual(signals, {
      version: "v1.32.4",
      supported: true,
      startTime: 1.76451849981e12,
      plegLastSeen: 1.764547205e12,
      plegNeverRelisted: false,
      eventedPLEG: false,
      plegRelist: { count: 28711, sumSeconds: 219.81430977799886 },
      runtimeStatus: { total: 5743, errors: 2 },
      runtimeListErrors: 0,
      housekeepingRan: true,
      desiredPods: { static: 4, nonStatic: 12 },
    });
  });

  test("kubelet 1.37 just started: PLEG never relisted, no housekeeping yet", async () => {
    const signals = readKubeletSignals(parseExposition(await fixture("v1.37-starting.txt")));
    assert.equal(signals.supported, true);
    assert.equal(signals.plegLastSeen, undefined);
    assert.equal(signals.plegNeverRelisted, true);
    assert.equal(signals.housekeepingRan, false);
    assert.equal(signals.desiredPods, undefined);
  });

  test("a version outside 1.32-1.37: housekeeping unknown, not 'not run'", async () => {
    const signals = readKubeletSignals(parseExposition(await fixture("v1.25-housekept.txt")));
    assert.equal(signals.supported, false);
    assert.equal(signals.housekeepingRan, undefined);
    assert.equal(signals.desiredPods, undefined);
    assert.equal(typeof signals.startTime, "number");
  });

  test("missing series are unknown, never zero", () => {
    const signals = readKubeletSignals(parseExposition("go_goroutines 3\n"));
    assert.deepEqual(signals, {
      version: undefined,
      supported: false,
      startTime: undefined,
      plegLastSeen: undefined,
      plegNeverRelisted: false,
      eventedPLEG: undefined,
      plegRelist: undefined,
      runtimeStatus: undefined,
      runtimeListErrors: undefined,
      housekeepingRan: undefined,
      desiredPods: undefined,
    });
  });

  test("EventedPLEG on 1.32-1.36: the PLEG gauge is its health check's 'now', not read", async () => {
    // kubelet.go 1.32-1.36 adds EventedPLEG.Healthy as a health check after the generic PLEG's;
    // it sets kubelet_pleg_last_seen_seconds to the current time. In 1.37 EventedPLEG only
    // requests relists and the gauge is the generic PLEG's.
    const housekept = await fixture("v1.32-housekept.txt");
    const gate = 'kubernetes_feature_enabled{name="EventedPLEG",stage="ALPHA"} 0';
    assert.ok(housekept.includes(gate));
    const on = housekept.replace(gate, gate.replace("} 0", "} 1"));
    for (const version of ["v1.32.4", "v1.36.3"]) {
      const text = on.replace('git_version="v1.32.4"', `git_version="${version}"`);
      const signals = readKubeletSignals(parseExposition(text));
      assert.equal(signals.eventedPLEG, true);
      assert.equal(signals.plegLastSeen, undefined, version);
      assert.equal(signals.plegNeverRelisted, false, version);
    }
    // Without the gate's series the gauge may be either: unknown on 1.32-1.36, read on 1.37.
    const noGate = housekept.replace(`${gate}\n`, "");
    assert.equal(readKubeletSignals(parseExposition(noGate)).plegLastSeen, undefined);
    const on137 = on.replace('git_version="v1.32.4"', 'git_version="v1.37.2"');
    assert.equal(readKubeletSignals(parseExposition(on137)).plegLastSeen, 1.764547205e12);
    const starting = (await fixture("v1.37-starting.txt")).replace(gate, "");
    assert.equal(readKubeletSignals(parseExposition(starting)).plegNeverRelisted, true);
  });

  test("the runtime's failed pod listings: list_podsandbox and list_containers errors", () => {
    const text = [
      'kubelet_runtime_operations_total{operation_type="list_podsandbox"} 9',
      'kubelet_runtime_operations_total{operation_type="status"} 9',
      'kubelet_runtime_operations_errors_total{operation_type="list_containers"} 2',
      'kubelet_runtime_operations_errors_total{operation_type="list_podsandbox"} 3',
      'kubelet_runtime_operations_errors_total{operation_type="status"} 4',
      "",
    ].join("\n");
    assert.equal(readKubeletSignals(parseExposition(text)).runtimeListErrors, 5);
  });

  test("the fake and demo kubelets write the fixture's families, types and labels", async () => {
    const recorded = parseExposition(await fixture("v1.32-housekept.txt"));
    const rendered = parseExposition(
      renderKubeletMetrics({
        version: "v1.32.4",
        startTimeSeconds: 1,
        plegLastSeenSeconds: 2,
        plegRelist: { count: 3, sumSeconds: 0.1 },
        runtimeStatus: { total: 4, errors: 1 },
        runtimeListErrors: 2,
        eventedPLEG: false,
        housekeeping: { desiredStatic: 1, desiredNonStatic: 2 },
      }),
    );
    for (const [name, type] of rendered.types) assert.equal(recorded.types.get(name), type, name);
    for (const [name, samples] of rendered.samples) {
      const labelSets = new Set(
        (recorded.samples.get(name) ?? []).map((s) => Object.keys(s.labels).sort().join(",")),
      );
      for (const sample of samples) {
        assert.ok(labelSets.has(Object.keys(sample.labels).sort().join(",")), name);
      }
    }
  });
});
