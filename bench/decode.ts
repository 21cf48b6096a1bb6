// bench/decode: what decoding a static pod manifest costs. (1) Per pod, for realistic manifests,
// against the floor of JSON.parse of the same bytes: the kubelet's decode (parse, the API's
// defaults, the static pod defaults and UID hash, validation) and the API's defaulting alone.
// (2) Large manifests: decoding time inline, and the longest the event loop waited while the
// same manifest was decoded on the decoding thread, as the sources do.

import type { Pod } from "../src/core/types.js";
import { NewestKubeletMinor } from "../src/core/version.js";
import type { JsonObject } from "../src/sources/json_object.js";
import { setObjectDefaultsPod } from "../src/sources/manifest/api_defaults.js";
import { tryDecodeSinglePod } from "../src/sources/manifest/decode.js";
import { ManifestDecoder } from "../src/sources/manifest/decoder.js";
import type { StaticPodOrigin } from "../src/sources/manifest/defaults.js";
import { goSchema } from "../src/sources/manifest/go_schema.js";
import { parseYamlOrJson } from "../src/sources/manifest/parse.js";
import { decodeTyped, marshal } from "../src/sources/manifest/typed.js";
import { validateStaticPod } from "../src/sources/manifest/validation.js";
import { manifests, perItem, perPreparedItem, rounds } from "./decode_inputs.js";

const origin: StaticPodOrigin = {
  source: "file",
  location: "/etc/kubernetes/manifests/bench.yaml",
  nodeName: "node-1",
};

const { json, jsonBytes } = manifests();
const n = json.length;
const floor = perItem(json, (s) => JSON.parse(s));
const parsed = perItem(jsonBytes, (b) => parseYamlOrJson(b, "preserve"));
const schema = goSchema(NewestKubeletMinor);
const typed = perItem(jsonBytes, (b) => {
  const value = decodeTyped(schema, schema.pod, parseYamlOrJson(b, "preserve") as JsonObject);
  return marshal(schema.pod, value);
});
const defaulting = perPreparedItem(
  () =>
    jsonBytes.map(
      (b) => decodeTyped(schema, schema.pod, parseYamlOrJson(b, "preserve") as JsonObject) as Pod,
    ),
  (pod) => setObjectDefaultsPod(pod, NewestKubeletMinor),
);
const decoded = perItem(jsonBytes, (b) => tryDecodeSinglePod(b, origin));
// ValidatePodCreate and the static pod checks alone, on the decoded pods (validation only reads).
const decodedPods = jsonBytes.map((b) => tryDecodeSinglePod(b, origin));
const validating = perItem(decodedPods, (pod) => validateStaticPod(pod, NewestKubeletMinor));
const ratio = (us: number) => `${us.toFixed(2)} (${(us / floor).toFixed(2)}×)`;
const kib = (json.reduce((sum, s) => sum + s.length, 0) / n / 1024).toFixed(1);

console.log(
  `Static pod decoding, ${n} manifests of ${kib} KiB of JSON, median of ${rounds} rounds (µs per pod, × the JSON.parse floor):\n`,
);
console.log(
  "| JSON.parse µs/pod | parse (literals and repeated keys kept) | parse, typed decode into v1.Pod and marshal | API defaults (SetObjectDefaults_Pod) | validation (validateStaticPod) | whole decode (parse, typed decode, defaults, UID, validation) |",
);
console.log("|---:|---:|---:|---:|---:|---:|");
console.log(
  `| ${floor.toFixed(2)} | ${ratio(parsed)} | ${ratio(typed)} | ${ratio(defaulting)} | ${ratio(validating)} | ${ratio(decoded)} |`,
);

/** Hostile manifests: many annotations (YAML, JSON, JSON with a syntax error). */
function large(count: number): { yaml: Buffer; json: Buffer; broken: Buffer } {
  const lines = ["apiVersion: v1", "kind: Pod", "metadata:", "  name: big", "  labels:"];
  for (let i = 0; i < count; i++) lines.push(`    a${i}: val-${i}`);
  lines.push("spec:", "  containers:", "  - {name: app, image: busybox}", "");
  const labels = Object.fromEntries(Array.from({ length: count }, (_, i) => [`a${i}`, `val-${i}`]));
  const text = JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "big", labels },
    spec: { containers: [{ name: "app", image: "busybox" }] },
  });
  return {
    yaml: Buffer.from(lines.join("\n")),
    json: Buffer.from(text),
    broken: Buffer.from(`${text.slice(0, -1)},}`),
  };
}

/** Decodes on the thread while a 1 ms interval measures the longest gap between its ticks. */
async function longestStall(decoder: ManifestDecoder, data: Buffer): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await decoder.decodeStaticPod(data, origin).catch(() => {});
  clearInterval(timer);
  return longest;
}

const decoder = new ManifestDecoder();
await decoder.decodeStaticPod(jsonBytes[0] ?? Buffer.alloc(0), origin); // start the thread
console.log(
  "\nLarge manifests (pods with N labels): decoding inline, and the longest event-loop stall while the decoding thread decodes it:\n",
);
console.log("| manifest | size | inline decode | longest event-loop stall (thread) |");
console.log("|---|---:|---:|---:|");
for (const count of [40_000, 200_000]) {
  const inputs = large(count);
  for (const [label, data] of [
    ["YAML", inputs.yaml],
    ["JSON", inputs.json],
    ["JSON, one syntax error", inputs.broken],
  ] as const) {
    const start = performance.now();
    try {
      tryDecodeSinglePod(data, origin);
    } catch {}
    const inline = performance.now() - start;
    const stall = await longestStall(decoder, data);
    console.log(
      `| ${count.toLocaleString("en")} labels, ${label} | ${(data.byteLength / 1048576).toFixed(1)} MiB | ${inline.toFixed(0)} ms | ${stall.toFixed(0)} ms |`,
    );
  }
}
await decoder.close();
