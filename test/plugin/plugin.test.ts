// kubectl podconfig's parts that need no cluster: its command line, its table, what counts as a
// problem, its bounded parallelism and how it finds the user's kubeconfig. The plugin against a
// real API server's pod proxy is test/realnode/plugin.e2e.ts.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, describe, test } from "node:test";
import { DefaultSelector, parseCommand, UsageError } from "../../src/plugin/args.js";
import { kubeconfigFiles } from "../../src/plugin/kubeconfig.js";
import { statusTable } from "../../src/plugin/output.js";
import { mapBounded } from "../../src/plugin/pool.js";
import { hasProblem, type NodeReport } from "../../src/plugin/status.js";
import { mergeKubeConfigs } from "../../src/sources/api/kubeconfig_file.js";

describe("the command line", () => {
  test("status: kubectl's defaults, nodes as positionals", () => {
    const command = parseCommand(["status", "node-1", "node-2", "-o", "wide"]);
    assert.deepEqual(command, {
      kind: "status",
      nodes: ["node-1", "node-2"],
      concurrency: 16,
      common: {
        kubeconfig: undefined,
        context: undefined,
        namespace: undefined,
        selector: DefaultSelector,
        scheme: "http",
        timeoutMs: 10_000,
        output: "wide",
      },
    });
  });

  test("explain NODE and explain -f FILE --node NODE", () => {
    assert.equal(parseCommand(["explain", "n1"]).kind, "explain-node");
    const file = parseCommand(["explain", "-f", "pod.yaml", "--node=n1", "--request-timeout=2s"]);
    assert.equal(file.kind, "explain-file");
    if (file.kind === "explain-file") {
      assert.equal(file.file, "pod.yaml");
      assert.equal(file.node, "n1");
      assert.equal(file.common.timeoutMs, 2000);
    }
  });

  test("help and version need no cluster", () => {
    assert.deepEqual(parseCommand([]), { kind: "help", topic: "root" });
    assert.deepEqual(parseCommand(["status", "--help"]), { kind: "help", topic: "status" });
    assert.deepEqual(parseCommand(["version"]), { kind: "version" });
  });

  for (const [args, message] of [
    [["stauts"], /unknown command "stauts"/],
    [["status", "-o", "table2"], /--output must be one of/],
    [["status", "--concurrency=0"], /--concurrency must be a whole number/],
    [["status", "--node=n1"], /--node is a flag of explain/],
    [["status", "--request-timeout=soon"], /--request-timeout/],
    [["status", "--exporter-scheme=ftp"], /--exporter-scheme must be http or https/],
    [["explain"], /explain takes one NODE/],
    [["explain", "-f", "pod.yaml"], /explain -f needs --node NODE/],
    [["explain", "n1", "-o", "wide"], /explain has no wide output/],
    [["explain", "n1", "--concurrency=2"], /--concurrency is a flag of status/],
    [["status", "--kubeconfig="], /--kubeconfig must not be empty/],
  ] as const) {
    test(`refused: ${args.join(" ")}`, () => {
      assert.throws(
        () => parseCommand(args),
        (err: unknown) => err instanceof UsageError && message.test(err.message),
      );
    });
  }
});

const report = (overrides: Partial<NodeReport>): NodeReport => ({
  node: "n1",
  exporter: "podconfig-exporter/podconfig-exporter-abcde",
  reachable: true,
  error: null,
  ready: true,
  sources: [
    { source: "file", ready: true, stored: true, seen: true, lastError: null },
    { source: "api", ready: true, stored: true, seen: true, lastError: null },
  ],
  timeToReady: { seconds: 31.14, of: "kubelet", upperBound: false },
  exporterTimeToReadySeconds: 2,
  refused: [],
  shadowed: [],
  kubelet: {
    crossCheck: "agrees",
    version: "v1.37.2",
    disagreements: [],
    syncLoopPaused: [],
    lastError: null,
  },
  kubeletMinor: "1.37",
  ...overrides,
});

describe("the status table", () => {
  test("a column per source present, in the kubelet's order; an upper bound marked <=", () => {
    const text = statusTable(
      [
        report({}),
        report({
          node: "n2",
          ready: false,
          sources: [
            { source: "file", ready: true, stored: true, seen: true, lastError: null },
            {
              source: "http",
              ready: false,
              stored: false,
              seen: false,
              lastError: "status: 503 Service Unavailable",
            },
          ],
          timeToReady: { seconds: 250.4, of: "copy", upperBound: true },
          refused: [{ source: "file", manifest: "/etc/kubernetes/manifests/x.yaml", reason: "r" }],
        }),
      ],
      false,
    );
    assert.equal(
      text,
      [
        "NODE   READY   FILE    HTTP       API     TIME-TO-READY   REFUSED   SHADOWED   KUBELET",
        "n1     True    Ready   -          Ready   31.1s           0         0          agrees",
        "n2     False   Ready   NotReady   -       <=250s          1         0          agrees",
        "",
      ].join("\n"),
    );
  });

  test("-o wide: DETAIL names what a not-ready source lacks, then its last error", () => {
    const stored = report({
      ready: false,
      sources: [
        { source: "file", ready: false, stored: true, seen: false, lastError: null },
        { source: "api", ready: true, stored: true, seen: true, lastError: null },
      ],
    });
    const never = report({
      node: "n2",
      ready: false,
      sources: [
        {
          source: "file",
          ready: false,
          stored: false,
          seen: false,
          lastError: "read: EACCES",
        },
      ],
    });
    const lines = statusTable([stored, never], true).split("\n");
    assert.match(lines[0] ?? "", /KUBELET-VERSION\s+EXPORTER\s+DETAIL$/);
    assert.match(
      lines[1] ?? "",
      /1\.37 \(v1\.37\.2\)\s+podconfig-exporter\/podconfig-exporter-abcde\s+file not ready \(stored, not yet seen by the sync loop\)$/,
    );
    assert.match(lines[2] ?? "", /file not ready \(no SET received yet\): read: EACCES$/);
  });

  test("a node not read is Unknown, with why under DETAIL", () => {
    const text = statusTable(
      [
        report({}),
        report({
          node: "n2",
          exporter: null,
          reachable: false,
          error: "no exporter pod on this node",
          ready: null,
          sources: [],
          timeToReady: null,
          kubelet: null,
        }),
      ],
      true,
    );
    assert.match(
      text,
      /\nn2\s+Unknown\s+-\s+-\s+-\s+-\s+-\s+-\s+-\s+<none>\s+unreachable: no exporter pod on this node\n/,
    );
  });

  test("a problem: not ready, refused, shadowed or a disagreement; never an unread node", () => {
    assert.equal(hasProblem(report({})), false);
    assert.equal(hasProblem(report({ ready: false })), true);
    assert.equal(
      hasProblem(report({ shadowed: [{ source: "file", manifest: "a.yaml.bak", winner: "a" }] })),
      true,
    );
    assert.equal(
      hasProblem(
        report({
          kubelet: {
            crossCheck: "disagrees",
            version: null,
            disagreements: [{ direction: "copy_ready_kubelet_not", reason: "r" }],
            syncLoopPaused: [],
            lastError: null,
          },
        }),
      ),
      true,
    );
    assert.equal(hasProblem(report({ reachable: false, ready: null })), false);
  });
});

test("mapBounded: never more than the limit at once, the results in the items' order", async () => {
  let running = 0;
  let most = 0;
  const items = Array.from({ length: 25 }, (_, i) => i);
  const results = await mapBounded(items, 4, async (i) => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5));
    running--;
    return i * 2;
  });
  assert.equal(most, 4);
  assert.deepEqual(
    results,
    items.map((i) => i * 2),
  );
});

describe("the user's kubeconfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "plugin-kubeconfig-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const a = join(dir, "a");
  const b = join(dir, "b");
  writeFileSync(
    a,
    "apiVersion: v1\nkind: Config\ncurrent-context: dev\nclusters:\n- name: dev\n  cluster: {server: 'https://127.0.0.1:1'}\ncontexts:\n- name: dev\n  context: {cluster: dev, user: me}\nusers:\n- name: me\n  user: {token: dev-token}\n",
  );
  writeFileSync(
    b,
    "apiVersion: v1\nkind: Config\ncurrent-context: prod\nclusters:\n- name: prod\n  cluster: {server: 'https://127.0.0.1:2'}\n- name: dev\n  cluster: {server: 'https://127.0.0.1:3'}\ncontexts:\n- name: prod\n  context: {cluster: prod, user: me, namespace: monitoring}\nusers:\n- name: me\n  user: {token: prod-token}\n",
  );

  test("as kubectl finds it: --kubeconfig, else $KUBECONFIG's existing files, else ~/.kube/config", () => {
    assert.deepEqual(kubeconfigFiles("/x", { KUBECONFIG: a }), ["/x"]);
    assert.deepEqual(
      kubeconfigFiles(undefined, { KUBECONFIG: [a, join(dir, "gone"), b].join(delimiter) }),
      [a, b],
    );
    assert.deepEqual(kubeconfigFiles(undefined, { HOME: "/home/u" }), ["/home/u/.kube/config"]);
  });

  test("merged as clientcmd merges: the first current-context and the first of each name win", () => {
    const docs = [a, b].map((file) => ({
      text: readFileSync(file, "utf8"),
      baseDir: dir,
    }));
    const merged = mergeKubeConfigs(docs);
    assert.equal(merged.cluster.server, "https://127.0.0.1:1");
    assert.equal(merged.user.token, "dev-token");
    const prod = mergeKubeConfigs(docs, "prod");
    assert.equal(prod.cluster.server, "https://127.0.0.1:2");
    // user "me" is taken from the first file that defines it.
    assert.equal(prod.user.token, "dev-token");
    assert.equal(prod.namespace, "monitoring");
    assert.throws(() => mergeKubeConfigs(docs, "staging"), /context staging is not defined/);
  });
});
