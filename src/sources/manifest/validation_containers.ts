// Containers, init containers and ephemeral containers (validation.go: validateContainers,
// validateInitContainers, validateEphemeralContainers, validateContainerCommon, ports,
// volume mounts and devices, probes, lifecycle handlers, resize policy, host port conflicts,
// validateContainerOnlyForPod's image whitespace).
import { isObject, type JsonObject } from "../json_object.js";
import {
  byteLength,
  duplicate,
  type ErrorList,
  forbidden,
  goJSON,
  goQuote,
  goTrimSpace,
  invalid,
  isValidPortName,
  isValidPortNum,
  notFound,
  notSupported,
  regexError,
  required,
  tooLong,
  tooMany,
} from "./field.js";
import { validateEnv, validateEnvFrom } from "./validation_env.js";
import { bool, isSet, list, num, objects, ptr, str, strings, struct } from "./validation_json.js";
import { validateDNS1123Label } from "./validation_names.js";
import { decodedAt, type ValidationContext } from "./validation_options.js";
import { validateLocalDescendingPath, validatePathNoBacksteps } from "./validation_paths.js";
import {
  resourceNameValue,
  validateContainerResourceRequirements,
} from "./validation_resources.js";
import { validateSecurityContext } from "./validation_security.js";
import { type VolumeMap, validatePullPolicy } from "./validation_volumes.js";

/** What every container validator needs from the pod. */
export interface PodScope {
  volumes: VolumeMap;
  podClaimNames: Set<string>;
  /** spec.terminationGracePeriodSeconds, null when unset. */
  gracePeriod: number | null;
  restartPolicy: string;
  hostUsers: boolean;
  /** spec.os, null when unset. */
  os: JsonObject | null;
  ctx: ValidationContext;
}

/** validateContainers. */
export function validateContainers(containers: unknown, path: string, pod: PodScope): ErrorList {
  const items = objects(containers);
  if (items.length === 0) return [required(path)];
  const errs: ErrorList = [];
  const allNames = new Set<string>();
  items.forEach((ctr, i) => {
    const at = `${path}[${i}]`;
    errs.push(...validateContainerCommon(ctr, at, pod));
    const name = str(ctr.name);
    if (allNames.has(name)) errs.push(duplicate(`${at}.name`, name));
    else allNames.add(name);
    const lifecycle = ptr(ctr.lifecycle);
    if (lifecycle) errs.push(...validateLifecycle(lifecycle, `${at}.lifecycle`, pod));
    errs.push(...validateLivenessProbe(ctr.livenessProbe, `${at}.livenessProbe`, pod));
    errs.push(...validateReadinessProbe(ctr.readinessProbe, `${at}.readinessProbe`, pod));
    errs.push(...validateStartupProbe(ctr.startupProbe, `${at}.startupProbe`, pod));
    if (pod.ctx.opts.AllowContainerRestartPolicyRules)
      errs.push(...validateContainerRestartPolicy(ctr, at, pod.ctx));
    else if (isSet(ctr.restartPolicy))
      errs.push(forbidden(`${at}.restartPolicy`, "may not be set for non-init containers"));
  });
  errs.push(...checkHostPortConflicts(items, path));
  return errs;
}

/** validateInitContainers. */
export function validateInitContainers(
  containers: unknown,
  regularContainers: unknown,
  path: string,
  pod: PodScope,
): ErrorList {
  const errs: ErrorList = [];
  const allNames = new Set(objects(regularContainers).map((c) => str(c.name)));
  objects(containers).forEach((ctr, i) => {
    const at = `${path}[${i}]`;
    errs.push(...validateContainerCommon(ctr, at, pod));
    let restartAlways = false;
    if (isSet(ctr.restartPolicy)) {
      const policy = str(ctr.restartPolicy);
      if (pod.ctx.opts.AllowContainerRestartPolicyRules) {
        if (policy !== "Always" || pod.ctx.opts.AllowRestartAllContainers)
          errs.push(...validateContainerRestartPolicy(ctr, at, pod.ctx));
        else if (objects(ctr.restartPolicyRules).length > 0)
          errs.push(
            forbidden(
              `${at}.restartPolicyRules`,
              "restartPolicyRules are not allowed for init containers with restart policy Always",
            ),
          );
      } else if (policy !== "Always")
        errs.push(notSupported(`${at}.restartPolicy`, policy, ["Always"]));
      restartAlways = policy === "Always";
    } else if (pod.ctx.minor >= 35 && objects(ctr.restartPolicyRules).length > 0)
      // 1.34's validateInitContainerRestartPolicy returns at once for a nil restartPolicy; from
      // 1.35 rules without a policy are refused (the oracle-1.34 campaign, 63 cases).
      errs.push(
        required(`${at}.restartPolicy`, "must specify restartPolicy when restart rules are used"),
      );
    const name = str(ctr.name);
    if (allNames.has(name)) errs.push(duplicate(`${at}.name`, name));
    else if (name.length > 0) allNames.add(name);
    errs.push(...checkHostPortConflicts([ctr], path));
    if (restartAlways) {
      const lifecycle = ptr(ctr.lifecycle);
      if (lifecycle) errs.push(...validateLifecycle(lifecycle, `${at}.lifecycle`, pod));
      errs.push(...validateLivenessProbe(ctr.livenessProbe, `${at}.livenessProbe`, pod));
      errs.push(...validateReadinessProbe(ctr.readinessProbe, `${at}.readinessProbe`, pod));
      errs.push(...validateStartupProbe(ctr.startupProbe, `${at}.startupProbe`, pod));
    } else
      for (const field of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"])
        if (isSet(ctr[field]))
          errs.push(
            forbidden(
              `${at}.${field}`,
              "may not be set for init containers without restartPolicy=Always",
            ),
          );
    if (!pod.ctx.opts.AllowSidecarResizePolicy && objects(ctr.resizePolicy).length > 0)
      errs.push(
        invalid(
          `${at}.resizePolicy`,
          resizePolicyValue(ctr.resizePolicy, pod.ctx.minor),
          "must not be set for init containers",
        ),
      );
    // 1.36's AllowExistingRestartContainerForNonSidecarInitContainer: false for the kubelet,
    // which has no old pod (hasRestartContainerForNonSidecarInitContainer(nil)).
    if (!restartAlways && pod.ctx.minor >= 36)
      objects(ctr.resizePolicy).forEach((p, j) => {
        if (p.restartPolicy === "RestartContainer")
          errs.push(
            invalid(
              `${at}.resizePolicy[${j}].restartPolicy`,
              "RestartContainer",
              "must not be set to 'RestartContainer' for non-sidecar initContainers",
            ),
          );
      });
  });
  return errs;
}

const supportedContainerRestartPolicies = ["Always", "Never", "OnFailure"];

/**
 * validateContainerRestartPolicy (ContainerRestartRules, from 1.35 for a static pod): the
 * policy, and at most 20 rules, each a known action and an In/NotIn exit code condition.
 */
function validateContainerRestartPolicy(
  ctr: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  const rules = objects(ctr.restartPolicyRules);
  if (!isSet(ctr.restartPolicy)) {
    if (rules.length === 0) return errs;
    errs.push(
      required(`${path}.restartPolicy`, "must specify restartPolicy when restart rules are used"),
    );
  } else if (!supportedContainerRestartPolicies.includes(str(ctr.restartPolicy)))
    errs.push(
      notSupported(
        `${path}.restartPolicy`,
        str(ctr.restartPolicy),
        supportedContainerRestartPolicies,
      ),
    );
  // 1.35 reported the count with TooLong, later minors with TooMany.
  if (rules.length > 20)
    errs.push(
      ctx.minor >= 36
        ? tooMany(`${path}.restartPolicyRules`, rules.length, 20)
        : tooLong(`${path}.restartPolicyRules`, 20),
    );
  const actions = ctx.opts.AllowRestartAllContainers
    ? ["Restart", "RestartAllContainers"]
    : ["Restart"];
  rules.forEach((rule, i) => {
    const at = `${path}.restartPolicyRules[${i}]`;
    const action = str(rule.action);
    if (!actions.includes(action)) errs.push(notSupported(`${at}.action`, action, actions));
    const exitCodes = ptr(rule.exitCodes);
    if (!exitCodes) {
      errs.push(required(`${at}.exitCodes`, "must be specified"));
      return;
    }
    const operator = str(exitCodes.operator);
    if (operator !== "In" && operator !== "NotIn")
      errs.push(notSupported(`${at}.exitCodes.operator`, operator, ["In", "NotIn"]));
    const values = list(exitCodes.values);
    if (values.length > 255)
      errs.push(
        ctx.minor >= 36
          ? tooMany(`${at}.exitCodes.values`, values.length, 255)
          : tooLong(`${at}.exitCodes.values`, 255),
      );
  });
  return errs;
}

/** A []core.ContainerResizePolicy as ErrorBody prints it: %#v, or JSON from 1.34. */
function resizePolicyValue(policies: unknown, minor: number): { go: string } {
  if (minor >= 34)
    return {
      go: goJSON(
        objects(policies).map((p) => ({
          ResourceName: str(p.resourceName),
          RestartPolicy: str(p.restartPolicy),
        })),
      ),
    };
  const items = objects(policies).map(
    (p) =>
      `core.ContainerResizePolicy{ResourceName:${JSON.stringify(str(p.resourceName))}, RestartPolicy:${JSON.stringify(str(p.restartPolicy))}}`,
  );
  return { go: `[]core.ContainerResizePolicy{${items.join(", ")}}` };
}

/**
 * The fields of EphemeralContainerCommon that allowedEphemeralContainerFields does not allow
 * (false or absent there), in Go's declaration order, the order validateFieldAllowList reports
 * them in: the same from 1.32 to 1.37, restartPolicyRules from 1.34.
 */
const forbiddenEphemeralContainerFields = [
  "ports",
  "resources",
  "resizePolicy",
  "restartPolicy",
  "restartPolicyRules",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "lifecycle",
];

/** validateEphemeralContainers (ValidatePodCreate refuses any anyway). */
export function validateEphemeralContainers(
  ephemeral: unknown,
  containers: unknown,
  initContainers: unknown,
  path: string,
  pod: PodScope,
): ErrorList {
  const items = objects(ephemeral);
  const errs: ErrorList = [];
  if (items.length === 0) return errs;
  const otherNames = new Set<string>();
  for (const c of [...objects(containers), ...objects(initContainers)]) otherNames.add(str(c.name));
  const allNames = new Set(otherNames);
  const decoded = objects(ptr(pod.ctx.decoded?.spec)?.ephemeralContainers);
  items.forEach((ec, i) => {
    const at = `${path}[${i}]`;
    errs.push(...validateContainerCommon(ec, at, pod));
    errs.push(...validateContainerOnlyForPod(ec, at));
    const name = str(ec.name);
    if (allNames.has(name)) errs.push(duplicate(`${at}.name`, name));
    else allNames.add(name);
    const target = str(ec.targetContainerName);
    if (target !== "" && !otherNames.has(target))
      errs.push(notFound(`${at}.targetContainerName`, target));
    for (const field of forbiddenEphemeralContainerFields)
      if (
        (field !== "restartPolicyRules" || pod.ctx.minor >= 34) &&
        isSetField(field, ec[field], decoded[i])
      )
        errs.push(forbidden(`${at}.${field}`, "cannot be set for an Ephemeral Container"));
    objects(ec.volumeMounts).forEach((vm, j) => {
      if (str(vm.subPath) !== "")
        errs.push(
          forbidden(`${at}.volumeMounts[${j}].subPath`, "cannot be set for an Ephemeral Container"),
        );
      if (str(vm.subPathExpr) !== "")
        errs.push(
          forbidden(
            `${at}.volumeMounts[${j}].subPathExpr`,
            "cannot be set for an Ephemeral Container",
          ),
        );
    });
  });
  return errs;
}

function isNonZero(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === "")
    return false;
  return true;
}

/**
 * validateFieldAllowList's test, reflect.DeepEqual against the field's zero value: `resources`
 * is the one struct held by value (the others are pointers, slices and scalars), and it is
 * zero when none of limits, requests and claims is there as decoded (`{}` too is a map, not
 * nil). A list is set when it decoded at all: `ports: []` is a non-nil empty slice. The wire
 * form cannot tell either: it drops an empty list and map, and has `resources: {}` always.
 */
function isSetField(field: string, value: unknown, decoded: JsonObject | undefined): boolean {
  if (Array.isArray(decoded?.[field])) return true;
  if (field !== "resources" || !isObject(value)) return isNonZero(value);
  const asDecoded = ptr(decoded?.resources) ?? value;
  return ["limits", "requests", "claims"].some(
    (key) => asDecoded[key] !== undefined && asDecoded[key] !== null,
  );
}

const terminationMessagePolicies = ["File", "FallbackToLogsOnError"];

/** validateContainerCommon. */
function validateContainerCommon(ctr: JsonObject, path: string, pod: PodScope): ErrorList {
  const errs: ErrorList = [];
  const name = str(ctr.name);
  if (name.length === 0) errs.push(required(`${path}.name`));
  else errs.push(...validateDNS1123Label(name, `${path}.name`));
  if (str(ctr.image).length === 0) errs.push(required(`${path}.image`));
  const policy = str(ctr.terminationMessagePolicy);
  if (policy === "") errs.push(required(`${path}.terminationMessagePolicy`));
  else if (!terminationMessagePolicies.includes(policy))
    errs.push(notSupported(`${path}.terminationMessagePolicy`, policy, terminationMessagePolicies));
  const volMounts = volumeMap(ctr.volumeMounts, "mountPath");
  const volDevices = volumeMap(ctr.volumeDevices, "devicePath");
  errs.push(...validateContainerPorts(ctr.ports, `${path}.ports`));
  errs.push(...validateEnv(ctr.env, `${path}.env`, pod.ctx));
  errs.push(...validateEnvFrom(ctr.envFrom, `${path}.envFrom`, pod.ctx));
  errs.push(
    ...validateVolumeMounts(
      ctr.volumeMounts,
      volDevices,
      pod.volumes,
      ctr,
      `${path}.volumeMounts`,
      pod.ctx,
    ),
  );
  errs.push(
    ...validateVolumeDevices(ctr.volumeDevices, volMounts, pod.volumes, `${path}.volumeDevices`),
  );
  errs.push(...validatePullPolicy(ctr.imagePullPolicy, `${path}.imagePullPolicy`));
  errs.push(
    ...validateContainerResourceRequirements(
      // The decoded quantities: up to 1.33 a bad one prints as parsed (0.5 as 5e-1, no spelling).
      struct(decodedAt(pod.ctx, `${path}.resources`) ?? ctr.resources),
      pod.podClaimNames,
      `${path}.resources`,
      pod.ctx,
    ),
  );
  errs.push(
    ...validateResizePolicy(ctr.resizePolicy, `${path}.resizePolicy`, pod.restartPolicy, pod.ctx),
  );
  errs.push(
    ...validateSecurityContext(
      ptr(ctr.securityContext),
      `${path}.securityContext`,
      pod.hostUsers,
      pod.ctx,
    ),
  );
  return errs;
}

/** GetVolumeMountMap / GetVolumeDeviceMap: name -> path, the last one winning. */
function volumeMap(items: unknown, pathField: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const item of objects(items)) map.set(str(item.name), str(item[pathField]));
  return map;
}

const supportedPortProtocols = ["SCTP", "TCP", "UDP"];

/** validateContainerPorts. */
function validateContainerPorts(ports: unknown, path: string): ErrorList {
  const errs: ErrorList = [];
  const allNames = new Set<string>();
  objects(ports).forEach((port, i) => {
    const at = `${path}[${i}]`;
    const name = str(port.name);
    if (name.length > 0) {
      const msgs = isValidPortName(name);
      if (msgs.length !== 0) for (const msg of msgs) errs.push(invalid(`${at}.name`, name, msg));
      else if (allNames.has(name)) errs.push(duplicate(`${at}.name`, name));
      else allNames.add(name);
    }
    const containerPort = num(port.containerPort);
    if (containerPort === 0) errs.push(required(`${at}.containerPort`));
    else
      for (const msg of isValidPortNum(containerPort))
        errs.push(invalid(`${at}.containerPort`, containerPort, msg));
    const hostPort = num(port.hostPort);
    if (hostPort !== 0)
      for (const msg of isValidPortNum(hostPort))
        errs.push(invalid(`${at}.hostPort`, hostPort, msg));
    const protocol = str(port.protocol);
    if (protocol.length === 0) errs.push(required(`${at}.protocol`));
    else if (!supportedPortProtocols.includes(protocol))
      errs.push(notSupported(`${at}.protocol`, protocol, supportedPortProtocols));
  });
  return errs;
}

/** ValidateVolumeMounts. */
function validateVolumeMounts(
  mounts: unknown,
  volDevices: Map<string, string>,
  volumes: VolumeMap,
  container: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  const mountpoints = new Set<string>();
  const devicePaths = new Set(volDevices.values());
  objects(mounts).forEach((mnt, i) => {
    const at = `${path}[${i}]`;
    const name = str(mnt.name);
    const mountPath = str(mnt.mountPath);
    if (name.length === 0) errs.push(required(`${at}.name`));
    if (!volumes.has(name)) errs.push(notFound(`${at}.name`, name));
    if (mountPath.length === 0) errs.push(required(`${at}.mountPath`));
    if (mountpoints.has(mountPath))
      errs.push(invalid(`${at}.mountPath`, mountPath, "must be unique"));
    mountpoints.add(mountPath);
    if (volDevices.has(name))
      errs.push(invalid(`${at}.name`, name, "must not already exist in volumeDevices"));
    if (devicePaths.has(mountPath))
      errs.push(
        invalid(`${at}.mountPath`, mountPath, "must not already exist as a path in volumeDevices"),
      );
    const subPath = str(mnt.subPath);
    const subPathExpr = str(mnt.subPathExpr);
    const volume = volumes.get(name);
    // 1.32 only: from 1.33 an image volume may be mounted with a subPath (the check is gone).
    if (ctx.minor <= 32 && volume && ptr(volume.image)) {
      if (subPath.length !== 0)
        errs.push(invalid(`${at}.subPath`, subPath, "not allowed in image volume sources"));
      if (subPathExpr.length !== 0)
        errs.push(invalid(`${at}.subPathExpr`, subPathExpr, "not allowed in image volume sources"));
    }
    if (subPath.length > 0) errs.push(...validateLocalDescendingPath(subPath, `${path}.subPath`));
    if (subPathExpr.length > 0) {
      if (subPath.length > 0)
        errs.push(
          invalid(
            `${at}.subPathExpr`,
            subPathExpr,
            "subPathExpr and subPath are mutually exclusive",
          ),
        );
      errs.push(...validateLocalDescendingPath(subPathExpr, `${path}.subPathExpr`));
    }
    if (isSet(mnt.mountPropagation))
      errs.push(
        ...validateMountPropagation(
          str(mnt.mountPropagation),
          container,
          `${path}.mountPropagation`,
        ),
      );
    errs.push(...validateMountRecursiveReadOnly(mnt, `${path}.recursiveReadOnly`));
    if (ctx.minor >= 37) {
      const options = strings(mnt.bindMountOptions);
      errs.push(...validateBindMountOptions(options, `${at}.bindMountOptions`));
      if (options.length > 0 && volume && ptr(volume.image))
        errs.push(
          invalid(
            `${at}.bindMountOptions`,
            { go: goJSON(options) },
            "bindMountOptions may not be used with image volumes",
          ),
        );
    }
  });
  return errs;
}

const supportedBindMountOptions = ["noexec", "nodev", "nosuid"].sort();

/** validateBindMountOptions (1.37). */
function validateBindMountOptions(options: string[], path: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  options.forEach((option, i) => {
    if (!supportedBindMountOptions.includes(option))
      errs.push(notSupported(`${path}[${i}]`, option, supportedBindMountOptions));
    if (seen.has(option)) errs.push(duplicate(`${path}[${i}]`, option));
    seen.add(option);
  });
  return errs;
}

const supportedMountPropagations = ["Bidirectional", "HostToContainer", "None"];

function validateMountPropagation(
  propagation: string,
  container: JsonObject,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  if (!supportedMountPropagations.includes(propagation))
    errs.push(notSupported(path, propagation, supportedMountPropagations));
  const sc = ptr(container.securityContext);
  const privileged = sc !== null && sc.privileged === true;
  if (propagation === "Bidirectional" && !privileged)
    errs.push(
      forbidden(path, "Bidirectional mount propagation is available only to privileged containers"),
    );
  return errs;
}

function validateMountRecursiveReadOnly(mount: JsonObject, path: string): ErrorList {
  if (!isSet(mount.recursiveReadOnly)) return [];
  const rro = str(mount.recursiveReadOnly);
  const errs: ErrorList = [];
  if (rro === "Disabled") return errs;
  if (rro === "Enabled" || rro === "IfPossible") {
    if (!bool(mount.readOnly))
      errs.push(forbidden(path, "may only be specified when readOnly is true"));
    if (isSet(mount.mountPropagation) && str(mount.mountPropagation) !== "None")
      errs.push(
        forbidden(path, "may only be specified when mountPropagation is None or not specified"),
      );
    return errs;
  }
  return [notSupported(path, rro, ["Disabled", "Enabled", "IfPossible"])];
}

/** ValidateVolumeDevices. */
function validateVolumeDevices(
  devices: unknown,
  volMounts: Map<string, string>,
  volumes: VolumeMap,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  const devicepath = new Set<string>();
  const devicename = new Set<string>();
  const mountPaths = new Set(volMounts.values());
  objects(devices).forEach((dev, i) => {
    const at = `${path}[${i}]`;
    const devName = str(dev.name);
    const devPath = str(dev.devicePath);
    const volume = volumes.get(devName);
    const didMatch = volume !== undefined;
    const isPVC =
      volume !== undefined &&
      (ptr(volume.persistentVolumeClaim) !== null || ptr(volume.ephemeral) !== null);
    if (devName.length === 0) errs.push(required(`${at}.name`));
    if (devicename.has(devName)) errs.push(invalid(`${at}.name`, devName, "must be unique"));
    if (didMatch && !isPVC)
      errs.push(
        invalid(
          `${at}.name`,
          devName,
          "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
        ),
      );
    if (!didMatch) errs.push(notFound(`${at}.name`, devName));
    if (devPath.length === 0) errs.push(required(`${at}.devicePath`));
    if (devicepath.has(devPath)) errs.push(invalid(`${at}.devicePath`, devPath, "must be unique"));
    if (devPath.length > 0 && validatePathNoBacksteps(devPath, `${path}.devicePath`).length > 0)
      errs.push(invalid(`${at}.devicePath`, devPath, "can not contain backsteps ('..')"));
    else devicepath.add(devPath);
    if (volMounts.has(devName))
      errs.push(invalid(`${at}.name`, devName, "must not already exist in volumeMounts"));
    if (mountPaths.has(devPath))
      errs.push(
        invalid(`${at}.devicePath`, devPath, "must not already exist as a path in volumeMounts"),
      );
    if (devName.length > 0) devicename.add(devName);
  });
  return errs;
}

const supportedResizeResources = ["cpu", "memory"];
const supportedResizePolicies = ["NotRequired", "RestartContainer"];

/** validateResizePolicy. */
function validateResizePolicy(
  policies: unknown,
  path: string,
  podRestartPolicy: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  const resources = new Set<string>();
  objects(policies).forEach((p, i) => {
    const resourceName = str(p.resourceName);
    const restartPolicy = str(p.restartPolicy);
    const value = resourceNameValue(resourceName, ctx);
    if (resources.has(resourceName)) errs.push(duplicate(`${path}[${i}]`, value));
    resources.add(resourceName);
    if (resourceName === "") errs.push(required(path));
    else if (!supportedResizeResources.includes(resourceName))
      errs.push(notSupported(path, value, supportedResizeResources));
    if (restartPolicy === "") errs.push(required(path));
    else if (!supportedResizePolicies.includes(restartPolicy))
      errs.push(notSupported(path, restartPolicy, supportedResizePolicies));
    if (podRestartPolicy === "Never" && restartPolicy !== "NotRequired")
      errs.push(
        invalid(
          path,
          restartPolicy,
          ctx.minor >= 36
            ? "must be 'NotRequired' when pod `restartPolicy` is 'Never'"
            : "must be 'NotRequired' when `restartPolicy` is 'Never'",
        ),
      );
  });
  return errs;
}

/** checkHostPortConflicts (AccumulateUniqueHostPorts). */
function checkHostPortConflicts(containers: JsonObject[], path: string): ErrorList {
  const errs: ErrorList = [];
  const all = new Set<string>();
  containers.forEach((ctr, ci) => {
    objects(ctr.ports).forEach((port, pi) => {
      const hostPort = num(port.hostPort);
      if (hostPort === 0) return;
      const key = `${str(port.protocol)}/${str(port.hostIP)}/${hostPort}`;
      if (all.has(key)) errs.push(duplicate(`${path}[${ci}].ports[${pi}].hostPort`, key));
      else all.add(key);
    });
  });
  return errs;
}

function validateLivenessProbe(probe: unknown, path: string, pod: PodScope): ErrorList {
  const p = ptr(probe);
  if (!p) return [];
  const errs = validateProbe(p, path, pod);
  if (num(p.successThreshold) !== 1)
    errs.push(invalid(`${path}.successThreshold`, num(p.successThreshold), "must be 1"));
  return errs;
}

function validateReadinessProbe(probe: unknown, path: string, pod: PodScope): ErrorList {
  const p = ptr(probe);
  if (!p) return [];
  const errs = validateProbe(p, path, pod);
  if (isSet(p.terminationGracePeriodSeconds))
    errs.push(
      invalid(
        `${path}.terminationGracePeriodSeconds`,
        num(p.terminationGracePeriodSeconds),
        "must not be set for readinessProbes",
      ),
    );
  return errs;
}

const validateStartupProbe = validateLivenessProbe;

function validateProbe(probe: JsonObject, path: string, pod: PodScope): ErrorList {
  const errs = validateHandler(probe, ["exec", "httpGet", "tcpSocket", "grpc"], path, pod);
  for (const field of [
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
  ]) {
    const value = num(probe[field]);
    if (value < 0)
      errs.push(invalid(`${path}.${field}`, value, "must be greater than or equal to 0"));
  }
  if (isSet(probe.terminationGracePeriodSeconds) && num(probe.terminationGracePeriodSeconds) <= 0)
    errs.push(
      invalid(
        `${path}.terminationGracePeriodSeconds`,
        num(probe.terminationGracePeriodSeconds),
        "must be greater than 0",
      ),
    );
  return errs;
}

function validateLifecycle(lifecycle: JsonObject, path: string, pod: PodScope): ErrorList {
  const errs: ErrorList = [];
  for (const hook of ["postStart", "preStop"]) {
    const handler = ptr(lifecycle[hook]);
    if (handler)
      errs.push(
        ...validateHandler(
          handler,
          ["exec", "httpGet", "tcpSocket", "sleep"],
          `${path}.${hook}`,
          pod,
        ),
      );
  }
  if (pod.ctx.minor >= 33 && isSet(lifecycle.stopSignal))
    errs.push(...validateStopSignal(str(lifecycle.stopSignal), `${path}.stopSignal`, pod));
  return errs;
}

const stopSignalsLinux = [
  "SIGABRT",
  "SIGALRM",
  "SIGBUS",
  "SIGCHLD",
  "SIGCLD",
  "SIGCONT",
  "SIGFPE",
  "SIGHUP",
  "SIGILL",
  "SIGINT",
  "SIGIO",
  "SIGIOT",
  "SIGKILL",
  "SIGPIPE",
  "SIGPOLL",
  "SIGPROF",
  "SIGPWR",
  "SIGQUIT",
  "SIGSEGV",
  "SIGSTKFLT",
  "SIGSTOP",
  "SIGSYS",
  "SIGTERM",
  "SIGTRAP",
  "SIGTSTP",
  "SIGTTIN",
  "SIGTTOU",
  "SIGURG",
  "SIGUSR1",
  "SIGUSR2",
  "SIGVTALRM",
  "SIGWINCH",
  "SIGXCPU",
  "SIGXFSZ",
  "SIGRTMIN",
  ...Array.from({ length: 15 }, (_, i) => `SIGRTMIN+${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `SIGRTMAX-${14 - i}`),
  "SIGRTMAX",
].sort();
const stopSignalsWindows = ["SIGKILL", "SIGTERM"];

/**
 * validateStopSignal (1.33+): needs spec.os; the value is a *core.Signal, which ErrorBody
 * prints as JSON from 1.34 and, in 1.33, dereferenced with %#v: a quoted string either way.
 */
function validateStopSignal(signal: string, path: string, pod: PodScope): ErrorList {
  const os = pod.os;
  if (!os) return [forbidden(path, "may not be set for containers with empty `spec.os.name`")];
  const value = { go: pod.ctx.minor >= 34 ? goJSON(signal) : goQuote(signal) };
  const name = str(os.name);
  if (name === "windows" && !stopSignalsWindows.includes(signal))
    return [notSupported(path, value, stopSignalsWindows)];
  if (name === "linux" && !stopSignalsLinux.includes(signal))
    return [notSupported(path, value, stopSignalsLinux)];
  return [];
}

/** validateHandler over the actions a probe or a lifecycle hook carries, in upstream's order. */
function validateHandler(
  handler: JsonObject,
  actions: readonly string[],
  path: string,
  pod: PodScope,
): ErrorList {
  let numHandlers = 0;
  const errs: ErrorList = [];
  for (const action of ["exec", "httpGet", "tcpSocket", "grpc", "sleep"]) {
    if (!actions.includes(action)) continue;
    const value = ptr(handler[action]);
    if (!value) continue;
    if (numHandlers > 0) {
      errs.push(forbidden(`${path}.${action}`, "may not specify more than 1 handler type"));
      continue;
    }
    numHandlers++;
    const at = `${path}.${action}`;
    if (action === "exec") {
      if (strings(value.command).length === 0) errs.push(required(`${at}.command`));
    } else if (action === "httpGet") errs.push(...validateHTTPGetAction(value, at, pod.ctx));
    else if (action === "tcpSocket") errs.push(...validatePortNumOrName(value.port, `${at}.port`));
    else if (action === "grpc") errs.push(...validateGRPCAction(value, at, pod.ctx));
    else errs.push(...validateSleepAction(value, at, pod));
  }
  if (numHandlers === 0) errs.push(required(path, "must specify a handler type"));
  return errs;
}

function validateSleepAction(sleep: JsonObject, path: string, pod: PodScope): ErrorList {
  const seconds = num(sleep.seconds);
  const grace = pod.gracePeriod;
  if (grace === null) return [];
  if (pod.ctx.opts.AllowPodLifecycleSleepActionZeroValue) {
    if (seconds < 0 || seconds > grace)
      return [
        invalid(
          path,
          seconds,
          `must be non-negative and less than terminationGracePeriodSeconds (${grace})`,
        ),
      ];
  } else if (seconds <= 0 || seconds > grace)
    return [
      invalid(
        path,
        seconds,
        `must be greater than 0 and less than terminationGracePeriodSeconds (${grace}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`,
      ),
    ];
  return [];
}

const supportedHTTPSchemes = ["HTTP", "HTTPS"];
const httpHeaderNameFmt = "[-A-Za-z0-9]+";

const supportedGRPCProbeModes = ["Plaintext", "TLS"];

function validateGRPCAction(grpc: JsonObject, path: string, ctx: ValidationContext): ErrorList {
  const errs = validatePortNumOrName(num(grpc.port), `${path}.port`);
  // 1.37: the probe's mode.
  if (ctx.minor >= 37 && isSet(grpc.mode) && !supportedGRPCProbeModes.includes(str(grpc.mode)))
    errs.push(notSupported(`${path}.mode`, str(grpc.mode), supportedGRPCProbeModes));
  return errs;
}

const supportedHTTPProtocols = ["HTTP1", "HTTP2"];

function validateHTTPGetAction(http: JsonObject, path: string, ctx: ValidationContext): ErrorList {
  const errs: ErrorList = [];
  if (str(http.path).length === 0) errs.push(required(`${path}.path`));
  errs.push(...validatePortNumOrName(http.port, `${path}.port`));
  const scheme = str(http.scheme);
  if (!supportedHTTPSchemes.includes(scheme))
    errs.push(notSupported(`${path}.scheme`, scheme, supportedHTTPSchemes));
  for (const header of objects(http.httpHeaders)) {
    const name = str(header.name);
    if (!/^[-A-Za-z0-9]+$/.test(name))
      errs.push(
        invalid(
          `${path}.httpHeaders`,
          name,
          regexError(
            "a valid HTTP header must consist of alphanumeric characters or '-'",
            httpHeaderNameFmt,
            "X-Header-Name",
          ),
        ),
      );
  }
  // 1.37: the protocol, HTTP2 only as cleartext (h2c) to the pod's own address.
  if (ctx.minor >= 37 && isSet(http.protocol)) {
    const protocol = str(http.protocol);
    if (!supportedHTTPProtocols.includes(protocol))
      errs.push(notSupported(`${path}.protocol`, protocol, supportedHTTPProtocols));
    else if (protocol === "HTTP2" && scheme !== "HTTP")
      errs.push(invalid(`${path}.protocol`, protocol, "is only supported with HTTP (H2C)"));
    else if (protocol === "HTTP2" && str(http.host).length > 0)
      errs.push(
        invalid(`${path}.host`, str(http.host), 'must be empty when `protocol` is "HTTP2"'),
      );
  }
  return errs;
}

/** ValidatePortNumOrName: an IntOrString (a JSON number or string). */
function validatePortNumOrName(port: unknown, path: string): ErrorList {
  if (typeof port === "string") return isValidPortName(port).map((msg) => invalid(path, port, msg));
  const value = num(port);
  return isValidPortNum(value).map((msg) => invalid(path, value, msg));
}

/** validateContainerOnlyForPod: no whitespace around the image (Go's strings.TrimSpace). */
export function validateContainerOnlyForPod(ctr: JsonObject, path: string): ErrorList {
  const image = str(ctr.image);
  if (byteLength(image) !== byteLength(goTrimSpace(image)))
    return [invalid(`${path}.image`, image, "must not have leading or trailing whitespace")];
  return [];
}
