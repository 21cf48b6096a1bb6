// The v1 Pod schema of one kubelet release, read from that release's own OpenAPI document in the
// Go module cache (api/openapi-spec/v3/api__v1_openapi.json of k8s.io/kubernetes at the pinned
// patch), reduced to what the generators need: each definition's fields and their types, and
// the values a string field's description names ("One of Always, OnFailure, Never").
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type FieldType =
  | { kind: "ref"; name: string }
  | { kind: "array"; items: FieldType }
  | { kind: "map"; values: FieldType }
  | { kind: "string"; values: string[]; format?: string }
  | { kind: "integer"; format?: string }
  | { kind: "number" }
  | { kind: "boolean" }
  | { kind: "quantity" }
  | { kind: "intOrString" }
  | { kind: "time" }
  | { kind: "free" };

export interface Definition {
  fields: Record<string, FieldType>;
  required: string[];
}

export interface PodSchema {
  /** k8s.io/kubernetes version the document was read from, e.g. v1.32.13. */
  release: string;
  /** By short name (Pod, PodSpec, Container, ...): every definition reachable from Pod. */
  definitions: Map<string, Definition>;
}

interface OpenAPIProperty {
  type?: string;
  format?: string;
  description?: string;
  items?: OpenAPIProperty;
  additionalProperties?: OpenAPIProperty;
  allOf?: { $ref: string }[];
  $ref?: string;
}

const PodDefinition = "io.k8s.api.core.v1.Pod";
const special: Record<string, FieldType> = {
  "io.k8s.apimachinery.pkg.api.resource.Quantity": { kind: "quantity" },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": { kind: "intOrString" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": { kind: "time" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": { kind: "time" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": { kind: "free" },
};

const shortName = (ref: string): string => ref.slice(ref.lastIndexOf(".") + 1);

/**
 * The values a description names: "One of Always, Never, IfNotPresent.", "Must be UDP, TCP, or
 * SCTP.", "Defaults to \"TCP\".", "File will use ...". Capitalized or quoted words only.
 */
export function describedValues(description: string): string[] {
  const values = new Set<string>();
  const add = (token: string) => {
    const word = token.trim().replace(/^"|"$/g, "");
    if (/^[A-Z][A-Za-z0-9]*$/.test(word) || /^"[^"\s]+"$/.test(token.trim())) values.add(word);
  };
  for (const m of description.matchAll(
    /\b(?:one of|must be|valid values are|possible values are|can be)\s*:?\s*([^.]*)/gi,
  ))
    for (const token of (m[1] ?? "").split(/,|\bor\b|\band\b/)) add(token);
  for (const m of description.matchAll(/\bdefaults to ("[^"]+"|[A-Z][A-Za-z]+)/gi)) add(m[1] ?? "");
  for (const m of description.matchAll(/\b([A-Z][A-Za-z]+) will\b/g)) add(m[1] ?? "");
  return [...values];
}

/** The directory of Go's module cache. */
export function goModCache(): string {
  return (
    process.env.GOMODCACHE || execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim()
  );
}

/** The pod schema of `release` (e.g. "v1.32.13"), read from the module cache. */
export function loadPodSchema(release: string, modCache = goModCache()): PodSchema {
  const file = join(
    modCache,
    `k8s.io/kubernetes@${release}`,
    "api/openapi-spec/v3/api__v1_openapi.json",
  );
  const document = JSON.parse(readFileSync(file, "utf8")) as {
    components: {
      schemas: Record<
        string,
        { properties?: Record<string, OpenAPIProperty>; required?: string[] }
      >;
    };
  };
  const schemas = document.components.schemas;
  const definitions = new Map<string, Definition>();
  const pending = [PodDefinition];
  const toType = (p: OpenAPIProperty): FieldType => {
    const ref = p.$ref ?? p.allOf?.[0]?.$ref;
    if (ref) {
      const name = ref.replace("#/components/schemas/", "");
      const known = special[name];
      if (known) return known;
      pending.push(name);
      return { kind: "ref", name: shortName(name) };
    }
    switch (p.type) {
      case "array":
        return { kind: "array", items: toType(p.items ?? {}) };
      case "object":
        return p.additionalProperties
          ? { kind: "map", values: toType(p.additionalProperties) }
          : { kind: "free" };
      case "string":
        return { kind: "string", values: describedValues(p.description ?? ""), format: p.format };
      case "integer":
        return { kind: "integer", format: p.format };
      case "number":
        return { kind: "number" };
      case "boolean":
        return { kind: "boolean" };
      default:
        return { kind: "free" };
    }
  };
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (definitions.has(shortName(name))) continue;
    const schema = schemas[name];
    if (!schema) throw new Error(`${file}: no definition ${name}`);
    const fields: Record<string, FieldType> = {};
    definitions.set(shortName(name), { fields, required: schema.required ?? [] });
    for (const [field, property] of Object.entries(schema.properties ?? {}))
      fields[field] = toType(property);
  }
  return { release, definitions };
}
