// Manifest bytes from generated pods: JSON, YAML, and the YAML edge cases a decoder may read
// differently from go-yaml v2 and sigs.k8s.io/yaml (octal spellings, anchors and aliases, merge
// keys, !!binary, duplicate keys, tabs, several documents, a byte order mark, CRLF, YAML that
// looks like JSON), and PodList bodies.
import { stringify } from "yaml";
import type { Rng } from "./rng.js";

type JsonObject = { [key: string]: unknown };

export interface ManifestText {
  /** What was done to the pod's text, for a counterexample. */
  form: string;
  bytes: Buffer;
}

const yaml = (value: unknown): string => stringify(value, { lineWidth: 0 });
const text = (form: string, body: string): ManifestText => ({
  form,
  bytes: Buffer.from(body, "utf8"),
});

/** The pod's name, for edits that address its metadata. */
const nameOf = (pod: JsonObject): string =>
  String((pod.metadata as JsonObject | undefined)?.name ?? "p");

/** One pod as a manifest, in a form picked by `rng`. */
export function manifestText(rng: Rng, pod: JsonObject): ManifestText {
  const forms: (() => ManifestText)[] = [
    () => text("json", JSON.stringify(pod)),
    () => text("json indented", JSON.stringify(pod, null, 2)),
    () => text("yaml", yaml(pod)),
    () => text("yaml", yaml(pod)),
    () => text("yaml", yaml(pod)),
    () => text("yaml with BOM", `\uFEFF${yaml(pod)}`),
    () => text("yaml CRLF", yaml(pod).replace(/\n/g, "\r\n")),
    () => text("yaml leading --- and trailing ...", `---\n${yaml(pod)}...\n`),
    () => text("yaml flow (JSON-looking YAML)", yaml(pod).length > 0 ? flowYaml(pod) : "{}"),
    () =>
      text("two documents", `${yaml(pod)}---\n${yaml({ ...pod, metadata: { name: "second" } })}`),
    () =>
      text(
        "duplicate key (metadata.name twice)",
        yaml(pod).replace(/^metadata:\n/m, `metadata:\n  name: first-${nameOf(pod)}\n`),
      ),
    () =>
      text(
        "duplicate key in JSON",
        JSON.stringify(pod).replace(/^\{/, `{"metadata":{"name":"dup"},`),
      ),
    () => text("tab indentation", yaml(pod).replace(/^ {2}/gm, "\t")),
    () => text("tab after value", yaml(pod).replace(/^(kind: Pod)$/m, "$1\t")),
    () => octal(rng, pod),
    () => anchors(pod),
    () =>
      text(
        "!!binary annotation",
        `${yaml(pod)}`.replace(
          /^metadata:\n/m,
          "metadata:\n  annotations:\n    bin: !!binary aGVsbG8=\n",
        ),
      ),
    () => {
      const spelling = rng.pick(["yes", "on", "y", "True", "off", "NO"]);
      const spec = { ...(pod.spec as JsonObject), hostNetwork: "__bool__" };
      return text(`hostNetwork: ${spelling}`, yaml({ ...pod, spec }).replace("__bool__", spelling));
    },
    () =>
      text("quoted number port", yaml(pod).replace(/containerPort: (\d+)/, 'containerPort: "$1"')),
    () => text("comment only", "# nothing here\n"),
    () => text("empty", ""),
  ];
  // Most manifests as authors write them, so that most pods reach the defaults and validation.
  if (rng.chance(0.6))
    return rng.chance(0.5) ? text("yaml", yaml(pod)) : text("json", JSON.stringify(pod));
  return rng.pick(forms)();
}

function flowYaml(pod: JsonObject): string {
  // YAML flow style with unquoted keys: starts with "{" so apimachinery reads it as JSON.
  return yaml(pod)
    .split("\n")
    .filter((line) => line.length > 0).length > 0
    ? `{apiVersion: v1, kind: Pod, metadata: {name: ${nameOf(pod)}}, spec: ${JSON.stringify((pod as JsonObject).spec ?? {})}}`
    : "{}";
}

function octal(rng: Rng, pod: JsonObject): ManifestText {
  const spelling = rng.pick(["0644", "0o644", "0x1a4", "420", "0755", "08", "0o8", "1_0", "+420"]);
  const spec = { ...(pod.spec as JsonObject) };
  const volume = { name: "octal", secret: { secretName: "s", defaultMode: 999777 } };
  // A mutation may have left volumes something else than a list: then the volume replaces it.
  spec.volumes = Array.isArray(spec.volumes) ? [...spec.volumes, volume] : [volume];
  const body = yaml({ ...pod, spec }).replace("defaultMode: 999777", `defaultMode: ${spelling}`);
  return text(`defaultMode ${spelling}`, body);
}

function anchors(pod: JsonObject): ManifestText {
  const body = yaml(pod).replace(
    /^metadata:\n/m,
    "metadata:\n  labels: &labels\n    app: anchored\n  annotations:\n    <<: *labels\n    extra: x\n",
  );
  return text("anchor, alias and merge key", body);
}

/** A manifest URL body holding several pods: a PodList, in JSON or YAML. */
export function podListText(rng: Rng, pods: JsonObject[]): ManifestText {
  const list = { apiVersion: "v1", kind: "PodList", items: pods };
  return rng.chance(0.5)
    ? text("PodList json", JSON.stringify(list))
    : text("PodList yaml", yaml(list));
}
