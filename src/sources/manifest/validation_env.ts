// A container's environment (validation.go: ValidateEnv, validateEnvVarValueFrom,
// validateObjectFieldSelector, validateContainerResourceFieldSelector, ValidateEnvFrom and
// the key selectors), and the downward API field selectors volumes share.
import type { JsonObject } from "../json_object.js";
import {
  type ErrorList,
  invalid,
  isConfigMapKey,
  isEnvVarName,
  isRelaxedEnvVarName,
  notSupported,
  required,
} from "./field.js";
import { objects, ptr, str } from "./validation_json.js";
import {
  nameIsDNSSubdomain,
  validateDNS1123Label,
  validateQualifiedName,
} from "./validation_names.js";
import type { ValidationContext } from "./validation_options.js";
import { validatePathNoBacksteps } from "./validation_paths.js";
import { quantityOf } from "./validation_resources.js";

const validEnvDownwardAPIFieldPathExpressions = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];
export const validVolumeDownwardAPIFieldPathExpressions = [
  "metadata.name",
  "metadata.namespace",
  "metadata.labels",
  "metadata.annotations",
  "metadata.uid",
];
export const validContainerResourceFieldPathExpressions = [
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
];
const hugepagesRequestsPrefixDownwardAPI = "requests.hugepages-";
const hugepagesLimitsPrefixDownwardAPI = "limits.hugepages-";
export const downwardAPIHugePagesPrefixes = [
  hugepagesLimitsPrefixDownwardAPI,
  hugepagesRequestsPrefixDownwardAPI,
];

const sorted = (values: readonly string[]): string[] => [...values].sort();

function envVarNameErrors(name: string, ctx: ValidationContext): string[] {
  return ctx.opts.AllowRelaxedEnvironmentVariableValidation
    ? isRelaxedEnvVarName(name)
    : isEnvVarName(name);
}

/** ValidateEnv. */
export function validateEnv(vars: unknown, path: string, ctx: ValidationContext): ErrorList {
  const errs: ErrorList = [];
  objects(vars).forEach((ev, i) => {
    const at = `${path}[${i}]`;
    const name = str(ev.name);
    if (name === "") errs.push(required(`${at}.name`));
    else for (const msg of envVarNameErrors(name, ctx)) errs.push(invalid(`${at}.name`, name, msg));
    errs.push(...validateEnvVarValueFrom(ev, `${at}.valueFrom`, ctx));
  });
  return errs;
}

function validateEnvVarValueFrom(ev: JsonObject, path: string, ctx: ValidationContext): ErrorList {
  const errs: ErrorList = [];
  const from = ptr(ev.valueFrom);
  if (!from) return errs;
  let numSources = 0;
  const fieldRef = ptr(from.fieldRef);
  if (fieldRef) {
    numSources++;
    errs.push(
      ...validateObjectFieldSelector(
        fieldRef,
        validEnvDownwardAPIFieldPathExpressions,
        `${path}.fieldRef`,
      ),
    );
  }
  const resourceFieldRef = ptr(from.resourceFieldRef);
  if (resourceFieldRef) {
    numSources++;
    errs.push(
      ...validateContainerResourceFieldSelector(
        resourceFieldRef,
        validContainerResourceFieldPathExpressions,
        downwardAPIHugePagesPrefixes,
        `${path}.resourceFieldRef`,
        false,
      ),
    );
  }
  const configMapKeyRef = ptr(from.configMapKeyRef);
  if (configMapKeyRef) {
    numSources++;
    errs.push(...validateKeySelector(configMapKeyRef, `${path}.configMapKeyRef`));
  }
  const secretKeyRef = ptr(from.secretKeyRef);
  if (secretKeyRef) {
    numSources++;
    errs.push(...validateKeySelector(secretKeyRef, `${path}.secretKeyRef`));
  }
  // From 1.34 (EnvFiles): a key of a file in an emptyDir volume. Older schemas have no
  // fileKeyRef; the decode drops it there.
  const fileKeyRef = ptr(from.fileKeyRef);
  if (fileKeyRef) {
    numSources++;
    errs.push(...validateFileKeySelector(fileKeyRef, `${path}.fileKeyRef`));
  }
  if (numSources === 0)
    errs.push(
      invalid(
        path,
        "",
        ctx.opts.AllowEnvFilesValidation
          ? "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"
          : "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
      ),
    );
  else if (str(ev.value).length !== 0)
    errs.push(invalid(path, "", "may not be specified when `value` is not empty"));
  else if (numSources > 1)
    errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  return errs;
}

const downwardAPIFieldLabels = new Set([
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.serviceAccountName",
  "spec.schedulerName",
  "status.phase",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
]);

/** fieldpath.SplitMaybeSubscriptedPath. */
function splitMaybeSubscriptedPath(fieldPath: string): [string, string, boolean] {
  if (!fieldPath.endsWith("']")) return [fieldPath, "", false];
  const s = fieldPath.slice(0, -2);
  const at = s.indexOf("['");
  if (at < 0) return [fieldPath, "", false];
  if (at === 0) return [fieldPath, "", false];
  return [s.slice(0, at), s.slice(at + 2), true];
}

/** podshelper.ConvertDownwardAPIFieldLabel: the internal field path, or an error. */
function convertDownwardAPIFieldLabel(version: string, label: string): string | Error {
  if (version !== "v1") return new Error(`unsupported pod version: ${version}`);
  const [path, , ok] = splitMaybeSubscriptedPath(label);
  if (ok) {
    if (path === "metadata.annotations" || path === "metadata.labels") return label;
    return new Error(`field label does not support subscript: ${label}`);
  }
  if (downwardAPIFieldLabels.has(label)) return label;
  if (label === "spec.host") return "spec.nodeName";
  return new Error(`field label not supported: ${label}`);
}

/** validateObjectFieldSelector. */
export function validateObjectFieldSelector(
  fs: JsonObject,
  expressions: readonly string[],
  path: string,
): ErrorList {
  const apiVersion = str(fs.apiVersion);
  const fieldPath = str(fs.fieldPath);
  if (apiVersion === "") return [required(`${path}.apiVersion`)];
  if (fieldPath === "") return [required(`${path}.fieldPath`)];
  const internal = convertDownwardAPIFieldLabel(apiVersion, fieldPath);
  if (internal instanceof Error)
    return [
      invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: ${internal.message}`),
    ];
  const [p, subscript, ok] = splitMaybeSubscriptedPath(internal);
  if (ok) {
    if (p === "metadata.annotations") return validateQualifiedName(subscript.toLowerCase(), path);
    if (p === "metadata.labels") return validateQualifiedName(subscript, path);
    return [invalid(path, p, "does not support subscript")];
  }
  if (!expressions.includes(p)) return [notSupported(`${path}.fieldPath`, p, sorted(expressions))];
  return [];
}

/** validateContainerResourceFieldSelector. */
export function validateContainerResourceFieldSelector(
  fs: JsonObject,
  expressions: readonly string[],
  prefixes: readonly string[],
  path: string,
  volume: boolean,
): ErrorList {
  const errs: ErrorList = [];
  const resource = str(fs.resource);
  if (volume && str(fs.containerName) === "") errs.push(required(`${path}.containerName`));
  else if (resource === "") errs.push(required(`${path}.resource`));
  else if (!expressions.includes(resource)) {
    if (!prefixes.some((prefix) => resource.startsWith(prefix)))
      errs.push(notSupported(`${path}.resource`, resource, sorted(expressions)));
  }
  errs.push(...validateContainerResourceDivisor(resource, fs.divisor, path));
  return errs;
}

const cpuDivisors = ["1m", "1"];
const byteDivisors = [
  "1",
  "1k",
  "1M",
  "1G",
  "1T",
  "1P",
  "1E",
  "1Ki",
  "1Mi",
  "1Gi",
  "1Ti",
  "1Pi",
  "1Ei",
];
const byteDivisorsText = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei";

/** validateContainerResourceDivisor: an unset (zero) divisor is fine. */
function validateContainerResourceDivisor(name: string, divisor: unknown, path: string): ErrorList {
  if (divisor === undefined || divisor === null) return [];
  const q = quantityOf(divisor);
  if (q.isZero()) return [];
  const text = q.toString();
  const errs: ErrorList = [];
  const at = `${path}.divisor`;
  if (name === "limits.cpu" || name === "requests.cpu") {
    if (!cpuDivisors.includes(text))
      errs.push(
        invalid(at, name, "only divisor's values 1m and 1 are supported with the cpu resource"),
      );
  } else if (name === "limits.memory" || name === "requests.memory") {
    if (!byteDivisors.includes(text))
      errs.push(
        invalid(
          at,
          name,
          `only divisor's values ${byteDivisorsText} are supported with the memory resource`,
        ),
      );
  } else if (name === "limits.ephemeral-storage" || name === "requests.ephemeral-storage") {
    if (!byteDivisors.includes(text))
      errs.push(
        invalid(
          at,
          name,
          `only divisor's values ${byteDivisorsText} are supported with the local ephemeral storage resource`,
        ),
      );
  }
  if (
    (name.startsWith(hugepagesRequestsPrefixDownwardAPI) ||
      name.startsWith(hugepagesLimitsPrefixDownwardAPI)) &&
    !byteDivisors.includes(text)
  )
    errs.push(
      invalid(
        at,
        name,
        `only divisor's values ${byteDivisorsText} are supported with the hugepages resource`,
      ),
    );
  return errs;
}

/** validateConfigMapKeySelector and validateSecretKeySelector (the same rules). */
function validateKeySelector(s: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const name = str(s.name);
  for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(`${path}.name`, name, msg));
  const key = str(s.key);
  if (key === "") errs.push(required(`${path}.key`));
  else for (const msg of isConfigMapKey(key)) errs.push(invalid(`${path}.key`, key, msg));
  return errs;
}

/** ValidateEnvFrom. */
export function validateEnvFrom(vars: unknown, path: string, ctx: ValidationContext): ErrorList {
  const errs: ErrorList = [];
  objects(vars).forEach((ev, i) => {
    const at = `${path}[${i}]`;
    const prefix = str(ev.prefix);
    if (prefix.length > 0)
      for (const msg of envVarNameErrors(prefix, ctx))
        errs.push(invalid(`${at}.prefix`, prefix, msg));
    let numSources = 0;
    for (const field of ["configMapRef", "secretRef"]) {
      const ref = ptr(ev[field]);
      if (!ref) continue;
      numSources++;
      const name = str(ref.name);
      if (name === "") errs.push(required(`${at}.${field}.name`));
      else
        for (const msg of nameIsDNSSubdomain(name, true))
          errs.push(invalid(`${at}.${field}.name`, name, msg));
    }
    if (numSources === 0)
      errs.push(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (numSources > 1)
      errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  });
  return errs;
}

/** validateFileKeySelector (1.34+). */
function validateFileKeySelector(selector: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const key = str(selector.key);
  if (key.length === 0) errs.push(required(`${path}.key`));
  else for (const msg of isRelaxedEnvVarName(key)) errs.push(invalid(`${path}.key`, key, msg));
  const volumeName = str(selector.volumeName);
  if (volumeName.length === 0) errs.push(required(`${path}.volumeName`));
  else errs.push(...validateDNS1123Label(volumeName, `${path}.volumeName`));
  const filePath = str(selector.path);
  if (filePath.length === 0) errs.push(required(`${path}.path`));
  else errs.push(...validatePathNoBacksteps(filePath, `${path}.path`));
  return errs;
}
