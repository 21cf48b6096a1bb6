// What differs between kubelet minors, asked of each minor's oracle rather than written down:
// its PodOperations and notification modes (info), whether an update copies the generation (a
// merge), and whether a static pod manifest is refused (one file listed by the file source) for
// manifests chosen where releases differ (API object references, refused from 1.34) and the
// four common invalid bodies. scripts/oracle/table.ts turns the answers into the version
// table; test/differential/version_table.test.ts checks the table against the oracles CI builds.
import type { OracleRequest } from "./theirs.js";

const manifest = (name: string, spec: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }], ...spec },
  });
const container = (extra: Record<string, unknown>) => ({
  containers: [{ name: "app", image: "nginx:1.27", ...extra }],
});

/** Static pod manifests whose fate may change with the release. */
export const manifestProbes: readonly { name: string; text: string }[] = [
  { name: "nothing to refuse", text: manifest("plain", {}) },
  {
    name: "a secret volume",
    text: manifest("secret-volume", { volumes: [{ name: "s", secret: { secretName: "s" } }] }),
  },
  {
    name: "a configMap env var",
    text: manifest(
      "configmap-env",
      container({ env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "c", key: "k" } } }] }),
    ),
  },
  { name: "serviceAccountName", text: manifest("service-account", { serviceAccountName: "sa" }) },
  {
    name: "a projected service account token",
    text: manifest("token", {
      volumes: [{ name: "t", projected: { sources: [{ serviceAccountToken: { path: "t" } }] } }],
    }),
  },
  {
    name: "a persistentVolumeClaim volume",
    text: manifest("pvc", { volumes: [{ name: "v", persistentVolumeClaim: { claimName: "c" } }] }),
  },
  {
    name: "a hostPath volume",
    text: manifest("hostpath", { volumes: [{ name: "h", hostPath: { path: "/var/lib/x" } }] }),
  },
  {
    name: "pod-level resources",
    text: manifest("pod-resources", { resources: { limits: { cpu: "1", memory: "1Gi" } } }),
  },
  {
    name: "memory limit 512MB",
    text: manifest("bad-quantity", container({ resources: { limits: { memory: "512MB" } } })),
  },
  {
    name: "cpu request 200m above limit 100m",
    text: manifest(
      "request-above-limit",
      container({ resources: { requests: { cpu: "200m" }, limits: { cpu: "100m" } } }),
    ),
  },
  {
    name: "hostPath /var/../etc",
    text: manifest("dotdot", { volumes: [{ name: "h", hostPath: { path: "/var/../etc" } }] }),
  },
  {
    name: "image ' nginx:1.27'",
    text: JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "space" },
      spec: { containers: [{ name: "app", image: " nginx:1.27" }] },
    }),
  },
];

export interface VersionFacts {
  release: string;
  ops: string[];
  modes: string[];
  sourceUpdateHasOp: boolean;
  copiesGeneration: boolean;
  /** Per manifest probe: "accepted" or the kubelet's error, shortened. */
  manifests: Record<string, string>;
}

const pod = (generation: number, labels: Record<string, string>) => ({
  metadata: { name: "p", namespace: "n", uid: "u", generation, labels, creationTimestamp: null },
  spec: { containers: [{ name: "c", image: "i", resources: {} }] },
  status: {},
});

/** Asks one oracle; `writeManifest` puts a probe's text in a file and returns its path. */
export async function versionFacts(
  request: OracleRequest,
  writeManifest: (name: string, text: string) => Promise<string>,
): Promise<VersionFacts> {
  const info = (await request({ cmd: "info" })) as {
    version: string;
    ops: string[];
    modes: string[];
    sourceUpdateHasOp: boolean;
  };
  const merge = (await request({
    cmd: "merge",
    mode: "incremental",
    sources: ["api"],
    steps: [
      { source: "api", op: "SET", pods: [pod(1, {})] },
      { source: "api", op: "SET", pods: [pod(2, { changed: "yes" })] },
    ],
  })) as { steps: { emitted: { op: string; pods: { metadata: { generation?: number } }[] }[] }[] };
  const updated = merge.steps[1]?.emitted.find((u) => u.op === "UPDATE")?.pods[0];
  const manifests: Record<string, string> = {};
  for (const probe of manifestProbes) {
    const path = await writeManifest(probe.name, probe.text);
    // A single file's error is what listConfig returns (a directory's files are logged).
    const answer = (await request({ cmd: "file", path })) as { listError: string | null };
    manifests[probe.name] = answer.listError ? shorten(answer.listError) : "accepted";
  }
  return {
    release: info.version,
    ops: info.ops,
    modes: info.modes,
    sourceUpdateHasOp: info.sourceUpdateHasOp,
    copiesGeneration: updated?.metadata.generation === 2,
    manifests,
  };
}

/** The kubelet's error without the file path and the field error list's wording. */
function shorten(error: string): string {
  const reference = /static pods may not reference ([^"]+?)(?:$|")/.exec(error);
  if (reference) return `refused: references ${reference[1]}`;
  const field = /((?:metadata|spec)[\w.[\]]*): ([A-Z][a-z]+(?: [a-z]+)?)/.exec(error);
  if (field) return `refused: ${field[1]?.replace(/\[\d+\]/g, "[]")}: ${field[2]}`;
  const parse = /couldn't parse as [a-z ]+\((.+?)(?: '|\)|$)/.exec(error);
  return parse ? `refused: couldn't parse (${parse[1]})` : "refused";
}

/** The facts of each version as a Markdown table, versions as columns. */
export function versionTable(facts: { minor: string; facts: VersionFacts }[]): string {
  const row = (name: string, cells: string[]) => `| ${name} | ${cells.join(" | ")} |`;
  const lines = [
    row(
      "kubelet",
      facts.map((f) => `${f.minor} (${f.facts.release})`),
    ),
    row(
      "---",
      facts.map(() => "---"),
    ),
    row(
      "PodOperations",
      facts.map((f) => f.facts.ops.join(", ")),
    ),
    row(
      "notification modes",
      facts.map((f) => f.facts.modes.join(", ") || "none"),
    ),
    row(
      "a source's update has an op",
      facts.map((f) => (f.facts.sourceUpdateHasOp ? "yes" : "no: its full set")),
    ),
    row(
      "an update copies metadata.generation",
      facts.map((f) => (f.facts.copiesGeneration ? "yes" : "no")),
    ),
  ];
  for (const probe of manifestProbes)
    lines.push(
      row(
        `static pod with ${probe.name}`,
        facts.map((f) => f.facts.manifests[probe.name] ?? "?"),
      ),
    );
  return lines.join("\n");
}

/** The probes of static pods that reference API objects (the table says from which release they are refused). */
const referenceProbes = [
  "a secret volume",
  "a configMap env var",
  "serviceAccountName",
  "a persistentVolumeClaim volume",
];
/** Four common invalid bodies: a bad quantity, requests above limits, a `..` path, a spaced image. */
const invalidProbes = [
  "memory limit 512MB",
  "cpu request 200m above limit 100m",
  "hostPath /var/../etc",
  "image ' nginx:1.27'",
];

/**
 * The README's short form of the same facts, one row per version: what a source sends, the
 * modes, the generation, and how many of each group of probes the kubelet refuses (the
 * full table in docs/fidelity.md names each).
 */
export function versionSummary(facts: { minor: string; facts: VersionFacts }[]): string {
  const refused = (f: VersionFacts, probes: string[]) =>
    `${probes.filter((p) => f.manifests[p]?.startsWith("refused")).length} of ${probes.length}`;
  const lines = [
    "| kubelet | pinned | a source sends | notification modes | an update copies `generation` | static pods referencing secrets, configmaps, service accounts, PVCs: refused | memory 512MB, cpu request above limit, hostPath /var/../etc, image with a space: refused |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const { minor, facts: f } of facts)
    lines.push(
      `| ${minor} | ${f.release} | ${f.sourceUpdateHasOp ? "an op" : "its full set"} | ${f.modes.join(", ") || "none"} | ${f.copiesGeneration ? "yes" : "no"} | ${refused(f, referenceProbes)} | ${refused(f, invalidProbes)} |`,
    );
  return lines.join("\n");
}
