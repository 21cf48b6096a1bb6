// The comparison bench:fleet --engine uses to call a rule's result on the engine equal to a
// single Prometheus's: series matched without the cluster and the engine's own labels, values
// within the tolerance the expression allows.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareCluster, identity, tolerance, withoutCluster } from "../../bench/engine/compare.js";

const options = {
  clusterLabel: "cluster",
  cluster: "a",
  engineLabels: ["tenant_id"],
  relative: 1e-9,
};

test("a series is identified without the cluster and the engine's labels, in label order", () => {
  assert.equal(
    identity({ source: "http", cluster: "a", job: "j", tenant_id: "t" }, ["cluster", "tenant_id"]),
    '{job="j", source="http"}',
  );
});

test("the engine's series of one cluster equal the reference's", () => {
  const engine = [
    {
      metric: { cluster: "a", tenant_id: "t", instance: "n1" },
      value: [1, "2"] as [number, string],
    },
    {
      metric: { cluster: "b", tenant_id: "t", instance: "n1" },
      value: [1, "9"] as [number, string],
    },
  ];
  const reference = [{ metric: { instance: "n1" }, value: [1, "2"] as [number, string] }];
  assert.deepEqual(compareCluster(engine, reference, options), {
    engine: 1,
    reference: 1,
    equal: 1,
    differences: [],
  });
});

test("a value outside the tolerance, a missing and an extra series are differences", () => {
  const engine = [
    { metric: { cluster: "a", instance: "n1" }, value: [1, "2.0001"] as [number, string] },
    { metric: { cluster: "a", instance: "n2" }, value: [1, "1"] as [number, string] },
  ];
  const reference = [
    { metric: { instance: "n1" }, value: [1, "2"] as [number, string] },
    { metric: { instance: "n3" }, value: [1, "1"] as [number, string] },
  ];
  const result = compareCluster(engine, reference, options);
  assert.equal(result.equal, 0);
  assert.deepEqual(
    result.differences.map((d) => [d.labels, d.engine, d.reference]),
    [
      ['{instance="n1"}', 2.0001, 2],
      ['{instance="n2"}', 1, undefined],
      ['{instance="n3"}', undefined, 1],
    ],
  );
  assert.equal(compareCluster(engine, reference, { ...options, relative: 0.001 }).equal, 1);
});

test("rates and increases are allowed two scrape intervals of their shortest window", () => {
  assert.equal(tolerance("max_over_time(x[2m]) == 0", 15), 1e-9);
  assert.equal(tolerance("rate(x[5m]) > 0", 15), 0.1);
  assert.equal(tolerance("increase(x[10m]) > 0 or increase(y[5m]) > 0", 15), 0.1);
});

test("series without the cluster label are counted", () => {
  assert.equal(
    withoutCluster(
      [
        { metric: { cluster: "a" }, value: [1, "1"] },
        { metric: {}, value: [1, "1"] },
      ],
      "cluster",
    ),
    1,
  );
});
