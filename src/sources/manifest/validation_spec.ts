// The part of ValidatePodSpec (pkg/apis/core/validation/validation.go, 1.32) that a static pod
// manifest can break: containers, ports, volumes and mounts, probes, enums, tolerations.
// What is not ported is listed in docs/validation.md.
import { isObject, type JsonObject } from "../json_object.js";
import { volumeSourceFields } from "./api_defaults.js";
import {
  checkEnum,
  dnsLabel,
  duplicate,
  forbidden,
  invalid,
  labelValue,
  notFound,
  portName,
  portNumber,
  qualifiedName,
  required,
  unsupported,
} from "./field.js";

const restartPolicies = ["Always", "OnFailure", "Never"];
const dnsPolicies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const pullPolicies = ["Always", "IfNotPresent", "Never"];
const messagePolicies = ["File", "FallbackToLogsOnError"];
const protocols = ["TCP", "UDP", "SCTP"];
const uriSchemes = ["HTTP", "HTTPS"];
const hostPathTypes = [
  "",
  "DirectoryOrCreate",
  "Directory",
  "FileOrCreate",
  "File",
  "Socket",
  "CharDevice",
  "BlockDevice",
];
const tolerationOperators = ["Exists", "Equal"];
const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/** The objects of a list field, with their paths; a non-list or non-object is an error. */
function items(value: unknown, path: string, errors: string[]): [JsonObject, string][] {
  if (!isSet(value)) return [];
  if (!Array.isArray(value)) {
    errors.push(`${path}: Invalid value: must be a list`);
    return [];
  }
  const result: [JsonObject, string][] = [];
  value.forEach((item: unknown, i) => {
    if (isObject(item)) result.push([item, `${path}[${i}]`]);
    else errors.push(`${path}[${i}]: Invalid value: must be an object`);
  });
  return result;
}

function nonNegative(path: string, value: unknown): string[] {
  if (!isSet(value)) return [];
  if (Number.isInteger(value) && (value as number) >= 0) return [];
  return [invalid(path, value, "must be greater than or equal to 0")];
}

/** validateVolumes: names unique DNS labels, exactly one source, hostPath's path and type. */
function validateVolumes(spec: JsonObject, errors: string[]): Set<string> {
  const names = new Set<string>();
  for (const [volume, path] of items(spec.volumes, "spec.volumes", errors)) {
    const name = volume.name;
    if (typeof name !== "string" || name === "") errors.push(required(`${path}.name`));
    else {
      errors.push(...dnsLabel(`${path}.name`, name));
      if (names.has(name)) errors.push(duplicate(`${path}.name`, name));
      names.add(name);
    }
    const sources = volumeSourceFields.filter((field) => isSet(volume[field]));
    if (sources.length === 0) errors.push(`${required(`${path}`)}: must specify a volume type`);
    if (sources.length > 1)
      errors.push(forbidden(`${path}.${sources[1]}`, "may not specify more than 1 volume type"));
    const hostPath = volume.hostPath;
    if (isObject(hostPath)) {
      if (typeof hostPath.path !== "string" || hostPath.path === "")
        errors.push(required(`${path}.hostPath.path`));
      if (isSet(hostPath.type) && !hostPathTypes.includes(hostPath.type as string))
        errors.push(unsupported(`${path}.hostPath.type`, hostPath.type, hostPathTypes));
    }
  }
  return names;
}

/** validateProbe and its handler: exactly one action, non-negative numbers, a valid port. */
function validateProbe(probe: unknown, path: string, errors: string[], liveness: boolean): void {
  if (!isSet(probe)) return;
  if (!isObject(probe)) {
    errors.push(`${path}: Invalid value: must be an object`);
    return;
  }
  validateHandler(probe, path, ["exec", "httpGet", "tcpSocket", "grpc"], errors);
  for (const field of [
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
  ])
    errors.push(...nonNegative(`${path}.${field}`, probe[field]));
  if (liveness && isSet(probe.successThreshold) && probe.successThreshold !== 1)
    errors.push(invalid(`${path}.successThreshold`, probe.successThreshold, "must be 1"));
}

function validateHandler(
  handler: JsonObject,
  path: string,
  actions: string[],
  errors: string[],
): void {
  const set = actions.filter((field) => isSet(handler[field]));
  if (set.length === 0) errors.push(`${required(path)}: must specify a handler type`);
  if (set.length > 1)
    errors.push(forbidden(`${path}.${set[1]}`, "may not specify more than 1 handler type"));
  for (const field of ["httpGet", "tcpSocket"]) {
    const action = handler[field];
    if (!isObject(action)) continue;
    const port = action.port;
    if (typeof port === "string") errors.push(...portName(`${path}.${field}.port`, port));
    else errors.push(...portNumber(`${path}.${field}.port`, port));
    if (field === "httpGet")
      errors.push(...checkEnum(`${path}.httpGet.scheme`, action.scheme, uriSchemes));
  }
  const grpc = handler.grpc;
  if (isObject(grpc)) errors.push(...portNumber(`${path}.grpc.port`, grpc.port));
}

function validatePorts(
  container: JsonObject,
  path: string,
  hostNetwork: boolean,
  errors: string[],
): void {
  const names = new Set<string>();
  for (const [port, at] of items(container.ports, `${path}.ports`, errors)) {
    if (isSet(port.name) && port.name !== "") {
      const name = String(port.name);
      errors.push(...portName(`${at}.name`, name));
      if (names.has(name)) errors.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    if (!isSet(port.containerPort) || port.containerPort === 0)
      errors.push(required(`${at}.containerPort`));
    else errors.push(...portNumber(`${at}.containerPort`, port.containerPort));
    if (isSet(port.hostPort) && port.hostPort !== 0)
      errors.push(...portNumber(`${at}.hostPort`, port.hostPort));
    errors.push(...checkEnum(`${at}.protocol`, port.protocol, protocols));
    if (hostNetwork && port.hostPort !== port.containerPort)
      errors.push(
        invalid(
          `${at}.hostPort`,
          port.hostPort,
          "must match `containerPort` when `hostNetwork` is true",
        ),
      );
  }
}

function validateMounts(
  container: JsonObject,
  path: string,
  volumes: Set<string>,
  errors: string[],
): void {
  const mountPaths = new Set<string>();
  for (const [mount, at] of items(container.volumeMounts, `${path}.volumeMounts`, errors)) {
    const name = mount.name;
    if (typeof name !== "string" || name === "") errors.push(required(`${at}.name`));
    else if (!volumes.has(name)) errors.push(notFound(`${at}.name`, name));
    const mountPath = mount.mountPath;
    if (typeof mountPath !== "string" || mountPath === "") errors.push(required(`${at}.mountPath`));
    else {
      if (mountPaths.has(mountPath))
        errors.push(invalid(`${at}.mountPath`, mountPath, "must be unique"));
      mountPaths.add(mountPath);
    }
  }
}

/** validateContainers / validateInitContainers: one container's fields. */
function validateContainer(
  c: JsonObject,
  path: string,
  spec: JsonObject,
  volumes: Set<string>,
  errors: string[],
): void {
  if (typeof c.image !== "string" || c.image.trim() === "") errors.push(required(`${path}.image`));
  errors.push(...checkEnum(`${path}.imagePullPolicy`, c.imagePullPolicy, pullPolicies));
  errors.push(
    ...checkEnum(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, messagePolicies),
  );
  validatePorts(c, path, spec.hostNetwork === true, errors);
  validateMounts(c, path, volumes, errors);
  for (const [env, at] of items(c.env, `${path}.env`, errors))
    if (typeof env.name !== "string" || env.name === "") errors.push(required(`${at}.name`));
  validateProbe(c.livenessProbe, `${path}.livenessProbe`, errors, true);
  validateProbe(c.readinessProbe, `${path}.readinessProbe`, errors, false);
  validateProbe(c.startupProbe, `${path}.startupProbe`, errors, true);
  const lifecycle = c.lifecycle;
  if (isObject(lifecycle))
    for (const hook of ["postStart", "preStop"]) {
      const handler = lifecycle[hook];
      if (isObject(handler))
        validateHandler(
          handler,
          `${path}.lifecycle.${hook}`,
          ["exec", "httpGet", "tcpSocket", "sleep"],
          errors,
        );
    }
}

/** Containers and init containers: names required, DNS labels, unique across both lists. */
function validateContainers(spec: JsonObject, volumes: Set<string>, errors: string[]): void {
  const names = new Set<string>();
  for (const field of ["containers", "initContainers"] as const) {
    const path = `spec.${field}`;
    const list = spec[field];
    if (field === "containers" && (!isSet(list) || (Array.isArray(list) && list.length === 0))) {
      errors.push(required(path));
      continue;
    }
    for (const [container, at] of items(list, path, errors)) {
      const name = container.name;
      if (!isSet(name) || name === "") errors.push(required(`${at}.name`));
      else if (typeof name !== "string") errors.push(`${at}.name: Invalid value: must be a string`);
      else {
        errors.push(...dnsLabel(`${at}.name`, name));
        if (names.has(name)) errors.push(duplicate(`${at}.name`, name));
        names.add(name);
      }
      validateContainer(container, at, spec, volumes, errors);
    }
  }
}

function validateTolerations(spec: JsonObject, errors: string[]): void {
  for (const [t, at] of items(spec.tolerations, "spec.tolerations", errors)) {
    const key = typeof t.key === "string" ? t.key : "";
    if (key !== "") errors.push(...qualifiedName(`${at}.key`, key));
    const operator = isSet(t.operator) && t.operator !== "" ? t.operator : "Equal";
    if (key === "" && operator !== "Exists")
      errors.push(
        invalid(
          `${at}.operator`,
          t.operator ?? "",
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (!tolerationOperators.includes(operator as string))
      errors.push(unsupported(`${at}.operator`, operator, tolerationOperators));
    else if (operator === "Exists" && isSet(t.value) && t.value !== "")
      errors.push(
        invalid(`${at}.operator`, t.operator, "value must be empty when `operator` is 'Exists'"),
      );
    else if (operator === "Equal" && typeof t.value === "string")
      errors.push(...labelValue(`${at}.value`, t.value));
    if (isSet(t.effect) && t.effect !== "" && !taintEffects.includes(t.effect as string))
      errors.push(unsupported(`${at}.effect`, t.effect, taintEffects));
    if (isSet(t.tolerationSeconds) && t.effect !== "NoExecute")
      errors.push(
        invalid(
          `${at}.effect`,
          t.effect ?? "",
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
  }
}

/** ValidatePodSpec's rules, plus ValidatePodCreate's refusal of ephemeral containers. */
export function validatePodSpec(spec: JsonObject): string[] {
  const errors: string[] = [];
  const volumes = validateVolumes(spec, errors);
  validateContainers(spec, volumes, errors);
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0)
    errors.push(forbidden("spec.ephemeralContainers", "cannot be set on create"));
  errors.push(...checkEnum("spec.restartPolicy", spec.restartPolicy, restartPolicies));
  errors.push(...checkEnum("spec.dnsPolicy", spec.dnsPolicy, dnsPolicies));
  if (spec.dnsPolicy === "None" && !isObject(spec.dnsConfig))
    errors.push(
      `${required("spec.dnsConfig")}: must provide \`dnsConfig\` when \`dnsPolicy\` is None`,
    );
  for (const field of ["hostname", "subdomain"]) {
    const value = spec[field];
    if (typeof value === "string" && value !== "") errors.push(...dnsLabel(`spec.${field}`, value));
  }
  const deadline = spec.activeDeadlineSeconds;
  if (
    isSet(deadline) &&
    !(
      Number.isInteger(deadline) &&
      (deadline as number) >= 1 &&
      (deadline as number) <= 2 ** 31 - 1
    )
  )
    errors.push(
      invalid(
        "spec.activeDeadlineSeconds",
        deadline,
        "must be between 1 and 2147483647, inclusive",
      ),
    );
  if (isObject(spec.nodeSelector))
    for (const [key, value] of Object.entries(spec.nodeSelector)) {
      errors.push(...qualifiedName(`spec.nodeSelector`, key));
      if (typeof value === "string") errors.push(...labelValue(`spec.nodeSelector`, value));
    }
  validateTolerations(spec, errors);
  return errors;
}
