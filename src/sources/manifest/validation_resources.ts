// Compute resources (pkg/apis/core/validation/validation.go: validateResourceRequirements,
// validateContainerResourceName, ValidateResourceQuantityValue, the hugepage rules) and the
// resource-name helpers of pkg/apis/core/helper they rest on. Go ranges over the limits and
// requests maps in a random order; this copy takes the manifest's order (docs/validation.md).
import type { JsonObject } from "../json_object.js";
import {
  type BadValue,
  duplicate,
  type ErrorList,
  forbidden,
  goJSON,
  goTrimSpace,
  invalid,
  isDNS1123Label,
  isQualifiedName,
  notFound,
  notSupported,
  required,
} from "./field.js";
import { Quantity } from "./quantity.js";
import { entries, objects, ptr, str, struct } from "./validation_json.js";
import { decodedAt, type ValidationContext } from "./validation_options.js";

const hugePagesPrefix = "hugepages-";
const requestsHugePagesPrefix = "requests.hugepages-";
const defaultNamespacePrefix = "kubernetes.io/";
const requestsPrefix = "requests.";

const standardContainerResources = new Set(["cpu", "memory", "ephemeral-storage"]);
const standardResources = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "storage",
  "requests.storage",
  "services.nodeports",
  "services.loadbalancers",
]);
const integerResources = new Set([
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);

export const isHugePageResourceName = (name: string): boolean => name.startsWith(hugePagesPrefix);
const isQuotaHugePageResourceName = (name: string): boolean =>
  name.startsWith(hugePagesPrefix) || name.startsWith(requestsHugePagesPrefix);
const isStandardResourceName = (name: string): boolean =>
  standardResources.has(name) || isQuotaHugePageResourceName(name);
const isStandardContainerResourceName = (name: string): boolean =>
  standardContainerResources.has(name) || isHugePageResourceName(name);
export const isNativeResource = (name: string): boolean =>
  !name.includes("/") || name.includes(defaultNamespacePrefix);
export const isOvercommitAllowed = (name: string): boolean =>
  isNativeResource(name) && !isHugePageResourceName(name);

export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(requestsPrefix)) return false;
  return isQualifiedName(`${requestsPrefix}${name}`).length === 0;
}

const isIntegerResourceName = (name: string): boolean =>
  integerResources.has(name) || isExtendedResourceName(name);

/** IsHugePageResourceValueDivisible. */
function isHugePageResourceValueDivisible(name: string, quantity: Quantity): boolean {
  let pageSize: Quantity;
  try {
    pageSize = Quantity.parse(name.slice(hugePagesPrefix.length));
  } catch {
    return false;
  }
  if (pageSize.sign() <= 0 || pageSize.milliValue() % 1000n !== 0n) return false;
  const size = pageSize.value();
  // A page size whose Value() is 0 (hugepages-1e21: its MilliValue is 0 too) makes Go's
  // `%` divide by zero, a panic in the kubelet; refused here, as not divisible.
  if (size === 0n) return false;
  return quantity.value() % size === 0n;
}

/**
 * A quantity of the decoded pod. The decoder refused what does not parse; a value this copy
 * still meets unparsed (a number, from JSON) parses as its text. SetDefaults_ResourceList
 * rounds every quantity up to a milli.
 */
export function quantityOf(value: unknown): Quantity {
  // The decoder may hand over the Quantity it parsed (and SetDefaults_ResourceList rounded).
  if (value instanceof Quantity) return value;
  // Quantity.UnmarshalJSON trims surrounding whitespace before parsing.
  const text = typeof value === "number" ? String(value) : goTrimSpace(str(value));
  return Quantity.parse(text).roundUp(-3);
}

/**
 * A core.ResourceName as ErrorBody prints it: through its String() method (unquoted) up to
 * apimachinery 0.33, as JSON (quoted) from 0.34.
 */
export function resourceNameValue(name: string, ctx: ValidationContext): BadValue {
  return { go: ctx.minor >= 34 ? goJSON(name) : name };
}

/** validateResourceName. The bad value is spelled only for an error (the common case has none). */
function validateResourceName(name: string, path: string, ctx: ValidationContext): ErrorList {
  const msgs = isQualifiedName(name);
  if (msgs.length > 0) return msgs.map((msg) => invalid(path, resourceNameValue(name, ctx), msg));
  if (!name.includes("/") && !isStandardResourceName(name))
    return [
      invalid(
        path,
        resourceNameValue(name, ctx),
        "must be a standard resource type or fully qualified",
      ),
    ];
  return [];
}

/** validateContainerResourceName. */
export function validateContainerResourceName(
  name: string,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs = validateResourceName(name, path, ctx);
  if (!name.includes("/")) {
    if (!isStandardContainerResourceName(name))
      return [
        ...errs,
        invalid(path, resourceNameValue(name, ctx), "must be a standard resource for containers"),
      ];
  } else if (!isNativeResource(name) && !isExtendedResourceName(name))
    return [
      ...errs,
      invalid(path, resourceNameValue(name, ctx), "doesn't follow extended resource name standard"),
    ];
  return errs;
}

/** The quantity as Go prints a resource.Quantity value: the struct before 1.34, JSON after. */
function quantityValue(q: Quantity, ctx: ValidationContext): BadValue {
  if (ctx.minor >= 34) return { go: JSON.stringify(q.toString()) };
  return { go: q.goSyntax() ?? "resource.Quantity{<inf.Dec>}" };
}

/** ValidateResourceQuantityValue. */
export function validateResourceQuantityValue(
  name: string,
  q: Quantity,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  if (q.sign() < 0) errs.push(invalid(path, q.toString(), "must be greater than or equal to 0"));
  if (isIntegerResourceName(name) && q.milliValue() % 1000n !== 0n)
    errs.push(invalid(path, quantityValue(q, ctx), "must be an integer"));
  return errs;
}

function hugePageValueError(name: string, q: Quantity, ctx: ValidationContext): string | null {
  if (!isHugePageResourceName(name)) return null;
  if (!ctx.opts.AllowIndivisibleHugePagesValues && !isHugePageResourceValueDivisible(name, q))
    return `${q.toString()} is not positive integer multiple of ${name}`;
  return null;
}

export type ResourceNameFn = (name: string, path: string, ctx: ValidationContext) => ErrorList;

/** validateResourceRequirements. */
export function validateResourceRequirements(
  requirements: JsonObject,
  resourceNameFn: ResourceNameFn,
  podClaimNames: Set<string>,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  const limPath = `${path}.limits`;
  const reqPath = `${path}.requests`;
  let limContainsCPUOrMemory = false;
  let reqContainsCPUOrMemory = false;
  let limContainsHugePages = false;
  let reqContainsHugePages = false;
  const limits = new Map(entries(requirements.limits).map(([k, v]) => [k, quantityOf(v)]));
  for (const [name, q] of limits) {
    const at = `${limPath}[${name}]`;
    errs.push(...resourceNameFn(name, at, ctx));
    errs.push(...validateResourceQuantityValue(name, q, at, ctx));
    if (isHugePageResourceName(name)) {
      limContainsHugePages = true;
      const msg = hugePageValueError(name, q, ctx);
      if (msg) errs.push(invalid(at, q.toString(), msg));
    }
    if (name === "cpu" || name === "memory") limContainsCPUOrMemory = true;
  }
  for (const [name, raw] of entries(requirements.requests)) {
    const q = quantityOf(raw);
    const at = `${reqPath}[${name}]`;
    errs.push(...resourceNameFn(name, at, ctx));
    errs.push(...validateResourceQuantityValue(name, q, at, ctx));
    const limit = limits.get(name);
    if (limit) {
      if (q.cmp(limit) !== 0 && !isOvercommitAllowed(name))
        errs.push(
          invalid(reqPath, q.toString(), `must be equal to ${name} limit of ${limit.toString()}`),
        );
      else if (q.cmp(limit) > 0)
        errs.push(
          invalid(
            reqPath,
            q.toString(),
            `must be less than or equal to ${name} limit of ${limit.toString()}`,
          ),
        );
    } else if (!isOvercommitAllowed(name))
      errs.push(required(limPath, "Limit must be set for non overcommitable resources"));
    if (isHugePageResourceName(name)) {
      reqContainsHugePages = true;
      const msg = hugePageValueError(name, q, ctx);
      if (msg) errs.push(invalid(at, q.toString(), msg));
    }
    if (name === "cpu" || name === "memory") reqContainsCPUOrMemory = true;
  }
  if (
    !limContainsCPUOrMemory &&
    !reqContainsCPUOrMemory &&
    (reqContainsHugePages || limContainsHugePages)
  )
    errs.push(forbidden(path, "HugePages require cpu or memory"));
  errs.push(...validateResourceClaimNames(requirements.claims, podClaimNames, `${path}.claims`));
  return errs;
}

/** validateResourceClaimNames. */
function validateResourceClaimNames(
  claims: unknown,
  podClaimNames: Set<string>,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  objects(claims).forEach((claim, i) => {
    const at = `${path}[${i}]`;
    const name = str(claim.name);
    if (name === "") {
      errs.push(required(at));
      return;
    }
    const request = str(claim.request);
    if (names.has(name)) errs.push(duplicate(at, name));
    else {
      let key = name;
      if (request !== "") {
        errs.push(...isDNS1123Label(request).map((msg) => invalid(`${at}.request`, request, msg)));
        key += `/${request}`;
      }
      if (names.has(key)) errs.push(duplicate(at, key));
      else if (request === "")
        for (const existing of names) {
          const slash = existing.indexOf("/");
          if (slash >= 0 && existing.slice(0, slash) === name) errs.push(duplicate(at, name));
        }
      names.add(key);
    }
    if (!podClaimNames.has(name)) {
      const detail =
        podClaimNames.size === 0
          ? "must be one of the names in pod.spec.resourceClaims which is empty"
          : `must be one of the names in pod.spec.resourceClaims: ${[...podClaimNames].sort().join(", ")}`;
      errs.push(notFound(at, name, detail));
    }
  });
  return errs;
}

/** validateContainerResourceRequirements (ValidateContainerResourceRequirements). */
export function validateContainerResourceRequirements(
  requirements: JsonObject,
  podClaimNames: Set<string>,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  return validateResourceRequirements(
    requirements,
    validateContainerResourceName,
    podClaimNames,
    path,
    ctx,
  );
}

/**
 * validateOverhead: the overhead as a requirement's limits, its quantities as decoded (up to
 * 1.33 a bad one prints as parsed).
 */
export function validateOverhead(overhead: unknown, path: string, ctx: ValidationContext) {
  const limits = decodedAt(ctx, path) ?? overhead;
  return validateContainerResourceRequirements({ limits }, new Set(), path, ctx);
}

/** resourcehelper.SupportedPodLevelResources, sorted as sets.List prints them. */
const supportedPodLevelResources = ["cpu", "hugepages-", "memory"];
export const isSupportedPodLevelResource = (name: string): boolean =>
  name === "cpu" || name === "memory" || name.startsWith(hugePagesPrefix);

/** validatePodResourceName. */
function validatePodResourceName(name: string, path: string, ctx: ValidationContext): ErrorList {
  const errs = validateResourceName(name, path, ctx);
  if (errs.length > 0) return errs;
  if (!isSupportedPodLevelResource(name))
    return [notSupported(path, resourceNameValue(name, ctx), supportedPodLevelResources)];
  return [];
}

type ResourceList = Map<string, Quantity>;

function addResourceList(list: ResourceList, other: ResourceList): void {
  for (const [name, q] of other) {
    const current = list.get(name);
    list.set(name, current ? current.add(q) : q);
  }
}

function maxResourceList(list: ResourceList, other: ResourceList): void {
  for (const [name, q] of other) {
    const current = list.get(name);
    if (!current || q.cmp(current) > 0) list.set(name, q);
  }
}

/**
 * resourcehelper's aggregateContainerResourcesByFn from the spec alone (no status, no DRA):
 * the sum of the regular and restartable init containers, raised to the largest need of any
 * init container while it runs (itself plus the restartable ones started before it).
 */
export function aggregateContainerResources(
  spec: JsonObject,
  field: "requests" | "limits",
): ResourceList {
  const of = (c: JsonObject): ResourceList =>
    new Map(entries(ptr(c.resources)?.[field]).map(([name, value]) => [name, quantityOf(value)]));
  const result: ResourceList = new Map();
  for (const c of objects(spec.containers)) addResourceList(result, of(c));
  const restartable: ResourceList = new Map();
  const initNeed: ResourceList = new Map();
  for (const c of objects(spec.initContainers)) {
    let resources = of(c);
    if (str(c.restartPolicy) === "Always") {
      addResourceList(result, resources);
      addResourceList(restartable, resources);
      resources = restartable;
    } else {
      const combined: ResourceList = new Map();
      addResourceList(combined, resources);
      addResourceList(combined, restartable);
      resources = combined;
    }
    maxResourceList(initNeed, resources);
  }
  maxResourceList(result, initNeed);
  return result;
}

/** validatePodResourceConsistency: pod-level resources cover what the containers ask for. */
function validatePodResourceConsistency(spec: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const resources = struct(spec.resources);
  const podRequests = new Map(entries(resources.requests));
  const podLimits = new Map(entries(resources.limits));
  for (const [name, sum] of aggregateContainerResources(spec, "requests")) {
    if (!podRequests.has(name)) continue;
    const pod = quantityOf(podRequests.get(name));
    if (sum.cmp(pod) > 0)
      errs.push(
        invalid(
          `${path}.requests[${name}]`,
          pod.toString(),
          `must be greater than or equal to aggregate container requests of ${sum.toString()}`,
        ),
      );
  }
  for (const [name, sum] of aggregateContainerResources(spec, "limits")) {
    if (!isHugePageResourceName(name) || !podLimits.has(name)) continue;
    const pod = quantityOf(podLimits.get(name));
    if (sum.cmp(pod) > 0)
      errs.push(
        invalid(
          `${path}.limits[${name}]`,
          pod.toString(),
          `must be greater than or equal to aggregate container limits of ${sum.toString()}`,
        ),
      );
  }
  objects(spec.containers).forEach((c, i) => {
    for (const [name, value] of entries(ptr(c.resources)?.limits)) {
      if (!podLimits.has(name)) continue;
      const limit = quantityOf(value);
      const pod = quantityOf(podLimits.get(name));
      if (limit.cmp(pod) > 0)
        errs.push(
          invalid(
            `${path}.containers[${i}][${name}].limits`,
            limit.toString(),
            `must be less than or equal to pod limits of ${pod.toString()}`,
          ),
        );
    }
  });
  return errs;
}

/** validatePodResources (from 1.35, PodLevelResources): spec.resources. */
export function validatePodResources(
  spec: JsonObject,
  podClaimNames: Set<string>,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const resources = ptr(spec.resources);
  if (!resources) return [];
  const at = `${path}.resources`;
  if (str(ptr(spec.os)?.name) === "windows")
    return [forbidden(at, "may not be set for a windows pod")];
  const errs: ErrorList = [];
  // Claims != nil: an empty list counts, and only the decoded pod still has it.
  const decoded = ptr(ptr(ctx.decoded?.spec)?.resources) ?? resources;
  if (Array.isArray(decoded.claims))
    errs.push(forbidden(`${at}.claims`, "claims may not be set for Resources at pod-level"));
  errs.push(
    ...validateResourceRequirements(resources, validatePodResourceName, podClaimNames, at, ctx),
  );
  errs.push(...validatePodResourceConsistency(spec, at));
  return errs;
}
