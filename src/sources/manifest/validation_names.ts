// Names, labels and object metadata: validation.go's ValidateDNS1123Label and friends,
// k8s.io/apimachinery/pkg/api/validation (NameIsDNSSubdomain, ValidateObjectMeta,
// ValidateAnnotations) and pkg/apis/meta/v1/validation (ValidateLabels, label selectors).
// Maps are read in the manifest's order (Go's is random: docs/validation.md).
import type { JsonObject } from "../json_object.js";
import {
  byteLength,
  type ErrorList,
  forbidden,
  goJSON,
  goStrings,
  goStruct,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  isGoPrint,
  isQualifiedName,
  isValidLabelValue,
  notSupported,
  required,
  tooLong,
} from "./field.js";
import { bool, entries, isSet, objects, ptr, str, strings } from "./validation_json.js";

const each = (path: string, value: string, messages: string[]): ErrorList =>
  messages.map((msg) => invalid(path, value, msg));

export const validateDNS1123Label = (value: string, path: string): ErrorList =>
  each(path, value, isDNS1123Label(value));
export const validateDNS1123Subdomain = (value: string, path: string): ErrorList =>
  each(path, value, isDNS1123Subdomain(value));
export const validateQualifiedName = (value: string, path: string): ErrorList =>
  each(path, value, isQualifiedName(value));
export const validateLabelName = validateQualifiedName;

/** maskTrailingDash, as upstream wrote it (it drops two characters). */
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith("-")) return `${name.slice(0, -2)}a`;
  return name;
}

/** NameIsDNSSubdomain (ValidatePodName, ValidateSecretName, ValidateConfigMapName, ...). */
export const nameIsDNSSubdomain = (name: string, prefix: boolean): string[] =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** NameIsDNSLabel (ValidateNamespaceName, ...). */
export const nameIsDNSLabel = (name: string, prefix: boolean): string[] =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** metav1validation.ValidateLabels. */
export function validateLabels(labels: unknown, path: string): ErrorList {
  const errs: ErrorList = [];
  for (const [key, value] of entries(labels)) {
    errs.push(...validateLabelName(key, path));
    errs.push(...each(path, str(value), isValidLabelValue(str(value))));
  }
  return errs;
}

/** apimachinery's TotalAnnotationSizeLimitB. */
export const totalAnnotationSizeLimitB = 256 * 1024;

/** ValidateAnnotationsSize: the keys' and values' bytes together over the limit. */
export function exceedsAnnotationSizeLimit(annotations: Annotations): boolean {
  let size = 0;
  for (const [key, value] of annotations) size += byteLength(key) + byteLength(value);
  return size > totalAnnotationSizeLimitB;
}

/** A pod's annotations, read once (a manifest may carry tens of thousands). */
export type Annotations = ReadonlyMap<string, string>;

export const annotationsOf = (meta: Record<string, unknown>): Annotations =>
  new Map(entries(meta.annotations).map(([k, v]) => [k, str(v)]));

/** apimachineryvalidation.ValidateAnnotations. */
export function validateAnnotations(annotations: Annotations, path: string): ErrorList {
  const errs: ErrorList = [];
  for (const key of annotations.keys()) {
    const msgs = isQualifiedName(key.toLowerCase());
    if (msgs.length > 0) errs.push(...each(path, key, msgs));
  }
  if (exceedsAnnotationSizeLimit(annotations)) errs.push(tooLong(path, totalAnnotationSizeLimitB));
  return errs;
}

const standardFinalizers = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** ValidateObjectMeta(meta, true, ValidatePodName, "metadata") for what a static pod can carry. */
export function validatePodObjectMeta(
  meta: Record<string, unknown>,
  annotations: Annotations,
  minor: number,
): ErrorList {
  const errs: ErrorList = [];
  const path = "metadata";
  const generateName = str(meta.generateName);
  if (generateName.length !== 0)
    errs.push(
      ...each(`${path}.generateName`, generateName, nameIsDNSSubdomain(generateName, true)),
    );
  const name = str(meta.name);
  if (name.length === 0) errs.push(required(`${path}.name`, "name or generateName is required"));
  else errs.push(...each(`${path}.name`, name, nameIsDNSSubdomain(name, false)));
  const namespace = str(meta.namespace);
  if (namespace.length === 0) errs.push(required(`${path}.namespace`));
  else errs.push(...each(`${path}.namespace`, namespace, nameIsDNSLabel(namespace, false)));
  const generation = typeof meta.generation === "number" ? meta.generation : 0;
  if (generation < 0)
    errs.push(invalid(`${path}.generation`, generation, "must be greater than or equal to 0"));
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`, minor));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(meta.managedFields, `${path}.managedFields`, minor));
  // core's ValidateObjectMeta: an unqualified finalizer must be a standard one.
  strings(meta.finalizers).forEach((finalizer, i) => {
    if (!finalizer.includes("/") && !standardFinalizers.has(finalizer))
      errs.push(
        invalid(
          `${path}.finalizers[${i}]`,
          finalizer,
          "name is neither a standard finalizer name nor is it fully qualified",
        ),
      );
  });
  return errs;
}

/** schema.ParseGroupVersion: "" and "/" are empty; more than one "/" is an error (null). */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | null {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string };
  return null;
}

/** An owner reference as ErrorBody prints it (metav1's json tags from 1.34). */
const goOwnerReference = (ref: JsonObject) =>
  goStruct(
    "v1.OwnerReference",
    false,
    [
      ["APIVersion", "string", str(ref.apiVersion)],
      ["Kind", "string", str(ref.kind)],
      ["Name", "string", str(ref.name)],
      ["UID", "string", str(ref.uid)],
      ["Controller", "*bool", isSet(ref.controller) ? bool(ref.controller) : null],
      [
        "BlockOwnerDeletion",
        "*bool",
        isSet(ref.blockOwnerDeletion) ? bool(ref.blockOwnerDeletion) : null,
      ],
    ],
    "v1.OwnerReference{...}",
    ref,
  );

/**
 * ValidateOwnerReferences (apimachinery). From 0.37 (kubelet 1.37) each reference has its index
 * in the path, and an empty field is "Required value"; 0.34 dropped the field's name from the
 * "must not be empty" messages. A v1 Event may not be an owner (BannedOwners).
 */
function validateOwnerReferences(refs: unknown, path: string, minor: number): ErrorList {
  const errs: ErrorList = [];
  let firstController = "";
  objects(refs).forEach((ref, i) => {
    const at = minor >= 37 ? `${path}[${i}]` : path;
    const apiVersion = str(ref.apiVersion);
    const kind = str(ref.kind);
    const gv = parseGroupVersion(apiVersion);
    if (minor >= 37) {
      if (apiVersion === "") errs.push(required(`${at}.apiVersion`, "must not be empty"));
      else if (gv === null || gv.version === "")
        errs.push(
          invalid(`${at}.apiVersion`, apiVersion, "must be <group>/<version> or <version>"),
        );
      for (const field of ["kind", "name", "uid"])
        if (str(ref[field]).length === 0)
          errs.push(required(`${at}.${field}`, "must not be empty"));
    } else {
      if ((gv?.version ?? "") === "")
        errs.push(invalid(`${at}.apiVersion`, apiVersion, "version must not be empty"));
      const word = (field: string) => (minor >= 34 ? "" : `${field} `);
      for (const field of ["kind", "name", "uid"])
        if (str(ref[field]).length === 0)
          errs.push(invalid(`${at}.${field}`, str(ref[field]), `${word(field)}must not be empty`));
    }
    if (gv?.group === "" && gv.version === "v1" && kind === "Event")
      errs.push(
        invalid(at, goOwnerReference(ref), "/v1, Kind=Event is disallowed from being an owner"),
      );
    if (ref.controller === true) {
      const current = `${kind}/${str(ref.name)}`;
      if (firstController !== "")
        errs.push(
          invalid(
            path,
            // A controller is set, so up to 1.33 %#v prints its address.
            minor >= 34 ? { go: goJSON(refs) } : { go: "[]v1.OwnerReference{...}" },
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      else firstController = current;
    }
  });
  return errs;
}

/** metav1validation: FieldManagerMaxLength, MaxSubresourceNameLength. */
const fieldManagerMaxLength = 128;
const maxSubresourceNameLength = 256;

/**
 * metav1validation.ValidateManagedFields. From 1.37 an empty operation is "Required value" and
 * another unknown one "Unsupported value"; before, both "must be `Apply` or `Update`".
 */
function validateManagedFields(entries: unknown, path: string, minor: number): ErrorList {
  const errs: ErrorList = [];
  objects(entries).forEach((entry, i) => {
    const at = `${path}[${i}]`;
    const operation = str(entry.operation);
    if (operation !== "Apply" && operation !== "Update") {
      if (minor < 37)
        errs.push(invalid(`${at}.operation`, operation, "must be `Apply` or `Update`"));
      else if (operation === "") errs.push(required(`${at}.operation`, "must not be empty"));
      else errs.push(notSupported(`${at}.operation`, operation, ["Apply", "Update"]));
    }
    const fieldsType = str(entry.fieldsType);
    if (fieldsType.length > 0 && fieldsType !== "FieldsV1")
      errs.push(invalid(`${at}.fieldsType`, fieldsType, "must be `FieldsV1`"));
    errs.push(...validateFieldManager(str(entry.manager), `${at}.manager`));
    if (byteLength(str(entry.subresource)) > maxSubresourceNameLength)
      errs.push(tooLong(`${at}.subresource`, maxSubresourceNameLength));
  });
  return errs;
}

/** ValidateFieldManager: at most 128 bytes, every character printable (positions in bytes). */
function validateFieldManager(manager: string, path: string): ErrorList {
  const errs: ErrorList = [];
  if (byteLength(manager) > fieldManagerMaxLength) errs.push(tooLong(path, fieldManagerMaxLength));
  let position = 0;
  for (const ch of manager) {
    if (!isGoPrint(ch)) {
      // %#U: U+ and at least four hex digits (the character itself only when printable).
      const code = (ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0");
      errs.push(invalid(path, manager, `invalid character U+${code} (at position ${position})`));
    }
    position += byteLength(ch);
  }
  return errs;
}

function validateFinalizers(finalizers: unknown, path: string): ErrorList {
  const errs: ErrorList = [];
  const names = strings(finalizers);
  for (const finalizer of names) errs.push(...validateQualifiedName(finalizer, path));
  if (names.includes("orphan") && names.includes("foregroundDeletion"))
    errs.push(
      invalid(path, goStrings(names), "finalizer orphan and foregroundDeletion cannot be both set"),
    );
  return errs;
}

export interface LabelSelectorOptions {
  AllowInvalidLabelValueInSelector: boolean;
}

/** metav1validation.ValidateLabelSelector. */
export function validateLabelSelector(
  selector: unknown,
  opts: LabelSelectorOptions,
  path: string,
): ErrorList {
  const ps = ptr(selector);
  if (!ps) return [];
  const errs = validateLabels(ps.matchLabels, `${path}.matchLabels`);
  objects(ps.matchExpressions).forEach((expr, i) => {
    errs.push(...validateLabelSelectorRequirement(expr, opts, `${path}.matchExpressions[${i}]`));
  });
  return errs;
}

/** metav1validation.ValidateLabelSelectorRequirement. */
export function validateLabelSelectorRequirement(
  sr: Record<string, unknown>,
  opts: LabelSelectorOptions,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  const operator = str(sr.operator);
  const values = strings(sr.values);
  switch (operator) {
    case "In":
    case "NotIn":
      if (values.length === 0)
        errs.push(
          required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"),
        );
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0)
        errs.push(
          forbidden(
            `${path}.values`,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      break;
    default:
      errs.push(invalid(`${path}.operator`, operator, "not a valid selector operator"));
  }
  errs.push(...validateLabelName(str(sr.key), `${path}.key`));
  if (!opts.AllowInvalidLabelValueInSelector)
    values.forEach((value, i) => {
      errs.push(...each(`${path}.values[${i}]`, value, isValidLabelValue(value)));
    });
  return errs;
}
