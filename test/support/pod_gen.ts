// Static pod manifests generated from the v1 Pod schema of a release (pod_schema.ts): every
// field of PodSpec, its containers, init and ephemeral containers, volumes of each kind, probes,
// lifecycle, resources, env, security contexts, affinity, topology spread, tolerations,
// dnsConfig, hostAliases, readiness and scheduling gates, overhead, os and resource claims is
// reachable. Values follow the field's name and type (a port is a port, a path a path, a string
// whose description names its values one of those), so most pods are valid and the refusals
// come from the combinations; mutatePod then sets one field to an edge or invalid value.
import type { FieldType, PodSchema } from "./pod_schema.js";
import type { Rng } from "./rng.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Definitions where exactly one of the listed fields is set (a volume's source, a handler). */
const oneOf: Record<string, { always: string[]; choose: "allOthers" | string[] }> = {
  Volume: { always: ["name"], choose: "allOthers" },
  VolumeProjection: { always: [], choose: "allOthers" },
  Probe: {
    always: [
      "initialDelaySeconds",
      "timeoutSeconds",
      "periodSeconds",
      "successThreshold",
      "failureThreshold",
      "terminationGracePeriodSeconds",
    ],
    choose: ["exec", "httpGet", "tcpSocket", "grpc"],
  },
  LifecycleHandler: { always: [], choose: "allOthers" },
  EnvVarSource: { always: [], choose: "allOthers" },
};

/** Fields left out: written by the API server or the kubelet, never by a manifest's author. */
const skipped = new Set([
  "ObjectMeta.managedFields",
  "ObjectMeta.ownerReferences",
  "ObjectMeta.creationTimestamp",
  "ObjectMeta.deletionTimestamp",
  "ObjectMeta.deletionGracePeriodSeconds",
  "ObjectMeta.resourceVersion",
  "ObjectMeta.selfLink",
  "ObjectMeta.generateName",
  "ObjectMeta.finalizers",
  "ObjectMeta.generation",
  "Pod.status",
]);

const images = [
  "busybox",
  "busybox:1.36",
  "nginx:latest",
  "registry.k8s.io/etcd:3.5.15-0",
  "registry.k8s.io/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097",
  "localhost:5000/app:v2",
];
// Some held as an int64Amount, some as an inf.Dec (1.5Gi, 1.000000000001): the UID's hash
// prints which.
const quantities = [
  "100m",
  "250m",
  "1",
  "2",
  "0.5",
  "64Mi",
  "128Mi",
  "1Gi",
  "1G",
  "500M",
  "10",
  "1.5Gi",
  "1e3",
  "1.000000000001",
];
const resourceNames = ["cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu"];
const words = ["alpha", "beta", "gamma", "delta", "web", "db", "cache", "main"];

interface Context {
  rng: Rng;
  schema: PodSchema;
  volumes: string[];
  names: number;
}

const label = (ctx: Context): string => `${ctx.rng.pick(words)}-${ctx.names++}`;

function stringFor(ctx: Context, field: string, type: { values: string[]; format?: string }): Json {
  const { rng } = ctx;
  if (type.format === "byte") return Buffer.from(rng.pick(words)).toString("base64");
  const f = field.toLowerCase();
  // A name is a name whatever its description mentions (its kind, capitalized).
  if (type.values.length > 0 && !f.endsWith("name") && rng.chance(0.9))
    return rng.pick(type.values);
  if (f === "image") return rng.pick(images);
  if (f === "apiversion") return "v1";
  if (f === "fieldpath")
    return rng.pick(["metadata.name", "metadata.namespace", "spec.nodeName", "status.podIP"]);
  if (f === "resource") return rng.pick(["limits.cpu", "requests.memory", "limits.memory"]);
  if (f === "topologykey")
    return rng.pick(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]);
  if (f === "ip" || f.endsWith("ip")) return `10.0.${rng.int(0, 255)}.${rng.int(1, 254)}`;
  if (f === "mountpath" || f === "devicepath") return `/mnt/${label(ctx)}`;
  if (f === "subpath" || f === "subpathexpr") return `sub/${rng.pick(words)}`;
  if (f === "path") return rng.chance(0.5) ? `/var/lib/${label(ctx)}` : `${rng.pick(words)}.conf`;
  if (f === "key") return rng.chance(0.5) ? `example.com/${rng.pick(words)}` : rng.pick(words);
  if (f === "driver") return "csi.example.com";
  if (f === "fstype") return rng.pick(["ext4", "xfs"]);
  if (f === "signername") return "example.com/signer";
  if (f === "localhostprofile") return `profiles/${rng.pick(words)}.json`;
  if (f.endsWith("name") || f === "hostname" || f === "subdomain") return label(ctx);
  if (f === "host") return rng.chance(0.5) ? "" : "localhost";
  return rng.pick(words);
}

function integerFor(ctx: Context, field: string): number {
  const { rng } = ctx;
  const f = field.toLowerCase();
  if (f === "containerport" || f === "port") return rng.int(1, 65535);
  if (f === "hostport") return rng.chance(0.7) ? 0 : rng.int(1, 65535);
  if (f.includes("mode")) return rng.pick([0o644, 0o400, 0o755, 0o600]);
  if (f.includes("seconds")) return rng.int(1, 3600);
  if (f === "weight") return rng.int(1, 100);
  if (f.startsWith("runas") || f.includes("group") || f === "uid" || f === "gid")
    return rng.int(0, 65535);
  if (f.endsWith("threshold")) return rng.int(1, 5);
  if (f === "maxskew") return rng.int(1, 3);
  if (f === "mindomains") return rng.int(1, 3);
  return rng.int(0, 10);
}

function fieldValue(
  ctx: Context,
  owner: string,
  field: string,
  type: FieldType,
  depth: number,
): Json {
  const { rng } = ctx;
  switch (type.kind) {
    case "ref":
      return objectOf(ctx, type.name, depth + 1);
    case "array": {
      const n = rng.int(field === "containers" ? 1 : 0, depth > 4 ? 1 : 3);
      return Array.from({ length: n }, () => fieldValue(ctx, owner, field, type.items, depth));
    }
    case "map": {
      if (
        field === "limits" ||
        field === "requests" ||
        field === "overhead" ||
        field === "capacity"
      ) {
        const map: JsonObject = {};
        for (const name of resourceNames) if (rng.chance(0.4)) map[name] = rng.pick(quantities);
        return map;
      }
      const map: JsonObject = {};
      for (let i = rng.int(0, 3); i > 0; i--) {
        const key = rng.chance(0.3) ? `example.com/${label(ctx)}` : label(ctx);
        map[key] = fieldValue(ctx, owner, "value", type.values, depth);
      }
      return map;
    }
    case "string":
      return stringFor(ctx, field, type);
    case "integer":
      return integerFor(ctx, field);
    case "number":
      return rng.int(0, 100) / 4;
    case "boolean":
      return rng.chance(0.5);
    case "quantity":
      return rng.pick(quantities);
    case "intOrString":
      return rng.chance(0.7) ? rng.int(1, 65535) : rng.pick(["http", "metrics", "grpc"]);
    case "time":
      return "2026-01-01T00:00:00Z";
    case "free":
      return {};
  }
}

/** How likely an optional field is set: generous near the top, sparse deep down. */
const fieldChance = (depth: number): number => (depth <= 3 ? 0.25 : depth <= 5 ? 0.1 : 0.04);

function objectOf(ctx: Context, name: string, depth: number): JsonObject {
  const { rng, schema } = ctx;
  const definition = schema.definitions.get(name);
  if (!definition) throw new Error(`${schema.release}: no definition ${name}`);
  const object: JsonObject = {};
  const fields = Object.keys(definition.fields).filter((f) => !skipped.has(`${name}.${f}`));
  const rule = oneOf[name];
  let chosen: string | undefined;
  if (rule) {
    const candidates =
      rule.choose === "allOthers" ? fields.filter((f) => !rule.always.includes(f)) : rule.choose;
    chosen = rng.pick(candidates.filter((f) => fields.includes(f)));
  }
  for (const field of fields) {
    const type = definition.fields[field] as FieldType;
    if (rule && !rule.always.includes(field)) {
      if (field !== chosen) continue;
    } else if (!definition.required.includes(field) && !rng.chance(fieldChance(depth))) {
      continue;
    }
    if (depth > 7 && type.kind === "ref" && field !== chosen) continue;
    object[field] = fieldValue(ctx, name, field, type, depth);
  }
  if (name === "Container" || name === "EphemeralContainer") {
    object.name = label(ctx);
    object.image = rng.pick(images);
    if (Array.isArray(object.volumeMounts))
      object.volumeMounts =
        ctx.volumes.length === 0
          ? []
          : object.volumeMounts.map((m) => ({
              ...(m as JsonObject),
              name: rng.pick(ctx.volumes),
            }));
  }
  if (name === "Volume") ctx.volumes.push(object.name as string);
  return object;
}

/** `count` distinct fields of `definition`, picked at random. */
function someFields(rng: Rng, fields: string[], count: number): string[] {
  const pool = [...fields];
  const picked: string[] = [];
  while (picked.length < count && pool.length > 0)
    picked.push(pool.splice(rng.int(0, pool.length - 1), 1)[0] as string);
  return picked;
}

function definitionOf(schema: PodSchema, name: string) {
  const definition = schema.definitions.get(name);
  if (!definition) throw new Error(`${schema.release}: no ${name}`);
  return definition;
}

/** A container: name and image, plus a few fields of the schema's Container. */
function containerOf(ctx: Context, definition: string): JsonObject {
  const fields = definitionOf(ctx.schema, definition).fields;
  const container: JsonObject = { name: label(ctx), image: ctx.rng.pick(images) };
  const optional = Object.keys(fields).filter((f) => f !== "name" && f !== "image");
  for (const field of someFields(ctx.rng, optional, ctx.rng.int(0, 2)))
    container[field] = fieldValue(ctx, definition, field, fields[field] as FieldType, 2);
  if (Array.isArray(container.volumeMounts))
    container.volumeMounts =
      ctx.volumes.length === 0
        ? []
        : container.volumeMounts.map((m) => ({
            ...(m as JsonObject),
            name: ctx.rng.pick(ctx.volumes),
          }));
  return container;
}

/**
 * A pod from the whole schema: a valid core (metadata, one or two containers) and a few fields
 * of PodSpec and of each container, any of which may be any field the release has; so most
 * pods are valid or refused for one reason, and the fields are all reached over many pods.
 */
export function generatePod(rng: Rng, schema: PodSchema, index: number): JsonObject {
  const ctx: Context = { rng, schema, volumes: [], names: 0 };
  const specFields = definitionOf(schema, "PodSpec").fields;
  const spec: JsonObject = {};
  // Volumes first, so that mounts can name them.
  if (rng.chance(0.3))
    spec.volumes = Array.from({ length: rng.int(1, 2) }, () => objectOf(ctx, "Volume", 2));
  const optional = Object.keys(specFields).filter(
    (f) => !["containers", "initContainers", "ephemeralContainers", "volumes"].includes(f),
  );
  for (const field of someFields(rng, optional, rng.int(0, 2)))
    spec[field] = fieldValue(ctx, "PodSpec", field, specFields[field] as FieldType, 1);
  spec.containers = Array.from({ length: rng.int(1, 2) }, () => containerOf(ctx, "Container"));
  if (rng.chance(0.15)) spec.initContainers = [containerOf(ctx, "Container")];
  if (rng.chance(0.02)) spec.ephemeralContainers = [containerOf(ctx, "EphemeralContainer")];
  const metadata: JsonObject = { name: `pod-${index}` };
  if (rng.chance(0.5)) metadata.namespace = rng.pick(["default", "kube-system", "team-a"]);
  if (rng.chance(0.4)) metadata.labels = { app: rng.pick(words), tier: rng.pick(words) };
  if (rng.chance(0.3)) metadata.annotations = { "example.com/note": rng.pick(words) };
  // A legacy annotation that the conversion drops up to 1.36 (and keeps from 1.37).
  if (rng.chance(0.02))
    metadata.annotations = {
      ...(metadata.annotations as JsonObject | undefined),
      "pod.beta.kubernetes.io/init-containers": "[]",
    };
  // Copied from an API object: a set time makes the kubelet's UID depend on its node.
  if (rng.chance(0.01)) metadata.creationTimestamp = "2024-01-02T03:04:05Z";
  if (rng.chance(0.1)) metadata.uid = `uid-${index}-${rng.int(0, 1e6)}`;
  // Written by controllers rather than authors, but validated in a manifest all the same
  // (apimachinery refuses a v1 Event as an owner, and a second controller).
  if (rng.chance(0.03))
    metadata.ownerReferences = Array.from({ length: rng.int(1, 2) }, () => ({
      apiVersion: rng.pick(["v1", "apps/v1", "", "a/b/c", "/v1"]),
      kind: rng.pick(["Node", "Event", "DaemonSet", ""]),
      name: label(ctx),
      uid: rng.chance(0.9) ? `uid-${rng.int(0, 1e6)}` : "",
      ...(rng.chance(0.5) ? { controller: rng.chance(0.5) } : {}),
    }));
  if (rng.chance(0.02))
    metadata.managedFields = [
      {
        manager: rng.pick(["kubectl", "", "kube\u0007ctl"]),
        operation: rng.pick(["Apply", "Update", "", "Patch"]),
        ...(rng.chance(0.5) ? { fieldsType: rng.pick(["FieldsV1", "FieldsV2"]) } : {}),
        ...(rng.chance(0.3) ? { time: "2024-01-02T03:04:05Z" } : {}),
        ...(rng.chance(0.3) ? { fieldsV1: { "f:metadata": {} } } : {}),
      },
    ];
  if (rng.chance(0.02))
    metadata.finalizers = [rng.pick(["kubernetes", "example.com/keep", "alpha", "a/b/c"])];
  return { apiVersion: "v1", kind: "Pod", metadata, spec };
}

/** Edge and invalid values one field may take. */
const edgeValues: Json[] = [
  null,
  "",
  " ",
  "UPPER",
  " lead",
  "a/b",
  "../x",
  "/var/../etc",
  "x".repeat(64),
  "x".repeat(254),
  "512MB",
  "100m",
  "-1",
  "1e3",
  "0x10",
  0,
  -1,
  1.5,
  65536,
  2147483648,
  1e21,
  true,
  false,
  [],
  {},
  [""],
  { "": "" },
];

/** Every path to a value in `value`, as keys and indices. */
function paths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [i, v] as const)
      : Object.entries(value);
    for (const [key, child] of entries) {
      const path = [...prefix, key];
      out.push(path);
      paths(child as Json, path, out);
    }
  }
  return out;
}

/**
 * The pod with one field set to an edge or invalid value, or removed; the path and the value
 * name the mutation. Identity fields (apiVersion, kind) are left alone half of the time less.
 */
export function mutatePod(rng: Rng, pod: JsonObject): { pod: JsonObject; mutation: string } {
  const copy = structuredClone(pod);
  const all = paths(copy).filter((p) => p[0] !== "apiVersion" && p[0] !== "kind");
  const path = rng.pick(all);
  let parent: Json = copy;
  for (const key of path.slice(0, -1))
    parent = (parent as Record<string | number, Json>)[key] as Json;
  const last = path.at(-1) as string | number;
  const target = parent as Record<string | number, Json>;
  let mutation: string;
  if (rng.chance(0.15) && !Array.isArray(parent)) {
    delete target[last];
    mutation = `${path.join(".")} removed`;
  } else {
    const value = rng.pick(edgeValues);
    target[last] = structuredClone(value);
    mutation = `${path.join(".")} = ${JSON.stringify(value)}`;
  }
  return { pod: copy, mutation };
}
