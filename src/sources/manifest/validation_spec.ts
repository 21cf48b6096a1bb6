// ValidatePodSpec (pkg/apis/core/validation/validation.go), in upstream's order: the order
// is part of the kubelet's error text. The pod is the decoded v1 Pod after the API's and the
// static pod's defaults; where the internal type differs (hostNetwork, hostPID, hostIPC and
// shareProcessNamespace live in the internal PodSecurityContext), the v1 field is read.
import type { JsonObject } from "../json_object.js";
import {
  duplicate,
  type ErrorList,
  forbidden,
  goStruct,
  inclusiveRangeError,
  invalid,
  notSupported,
  required,
} from "./field.js";
import {
  type PodScope,
  validateContainers,
  validateEphemeralContainers,
  validateInitContainers,
} from "./validation_containers.js";
import { isSet, num, objects, ptr, str } from "./validation_json.js";
import { nameIsDNSSubdomain, validateDNS1123Label, validateLabels } from "./validation_names.js";
import type { ValidationContext } from "./validation_options.js";
import { validateOverhead, validatePodResources } from "./validation_resources.js";
import {
  validateAffinity,
  validateHostAliases,
  validateImagePullSecrets,
  validateOS,
  validatePodDNSConfig,
  validateReadinessGates,
  validateSchedulingGates,
  validateTolerations,
  validateTopologySpreadConstraints,
} from "./validation_scheduling.js";
import {
  validateHostUsers,
  validatePodSpecSecurityContext,
  validateShareProcessNamespace,
  validateWindowsHostProcessPod,
} from "./validation_security.js";
import {
  validateFileKeyRefVolumes,
  validatePodHostName,
  validateSchedulingGroup,
  validateWorkloadReference,
} from "./validation_spec_newer.js";
import { validateVolumes } from "./validation_volumes.js";

const restartPolicies = ["Always", "OnFailure", "Never"];
const dnsPolicies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const maxInt32 = 2147483647;

function validateEnum(value: unknown, path: string, supported: string[]): ErrorList {
  const v = str(value);
  if (supported.includes(v)) return [];
  if (v === "") return [required(path)];
  return [notSupported(path, v, supported)];
}

/**
 * validatePodResourceClaims. A pod that carries the mirror pod annotation (a manifest may set
 * it) gets one error per claim and nothing else of it: field.NewPath(""), printed "[]".
 */
function validatePodResourceClaims(claims: unknown, mirror: boolean, path: string): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  objects(claims).forEach((claim, i) => {
    if (mirror) {
      errs.push(forbidden("[]", "static pods do not support resource claims"));
      return;
    }
    const at = `${path}[${i}]`;
    const name = str(claim.name);
    if (name === "") errs.push(required(`${at}.name`));
    else if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
    else {
      errs.push(...validateDNS1123Label(name, `${at}.name`));
      names.add(name);
    }
    const claimName = claim.resourceClaimName;
    const templateName = claim.resourceClaimTemplateName;
    const value = goStruct(
      "core.PodResourceClaim",
      false,
      [
        ["Name", "string", name],
        ["ResourceClaimName", "*string", isSet(claimName) ? str(claimName) : null],
        ["ResourceClaimTemplateName", "*string", isSet(templateName) ? str(templateName) : null],
      ],
      "core.PodResourceClaim{...}",
    );
    if (isSet(claimName) && isSet(templateName))
      errs.push(
        invalid(
          at,
          value,
          "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
        ),
      );
    if (!isSet(claimName) && !isSet(templateName))
      errs.push(
        invalid(at, value, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"),
      );
    if (isSet(claimName))
      for (const msg of nameIsDNSSubdomain(str(claimName), false))
        errs.push(invalid(`${at}.resourceClaimName`, str(claimName), msg));
    if (isSet(templateName))
      for (const msg of nameIsDNSSubdomain(str(templateName), false))
        errs.push(invalid(`${at}.resourceClaimTemplateName`, str(templateName), msg));
  });
  return errs;
}

/** validatePodHostNetworkDeps. */
function validatePodHostNetworkDeps(
  spec: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  if (spec.hostNetwork !== true) return errs;
  objects(spec.containers).forEach((c, i) => {
    objects(c.ports).forEach((port, j) => {
      const hp = num(port.hostPort);
      const cp = num(port.containerPort);
      if ((ctx.opts.ResourceIsPod || hp !== 0) && hp !== cp)
        errs.push(
          invalid(
            `${path}.containers[${i}].ports[${j}].hostPort`,
            hp,
            "must match `containerPort` when `hostNetwork` is true",
          ),
        );
    });
  });
  return errs;
}

/** ValidatePodSpec for a pod named `podName`. */
export function validatePodSpec(
  spec: JsonObject,
  podName: string,
  mirror: boolean,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  if (!isSet(spec.terminationGracePeriodSeconds))
    errs.push(required(`${path}.terminationGracePeriodSeconds`));
  const gracePeriod = isSet(spec.terminationGracePeriodSeconds)
    ? num(spec.terminationGracePeriodSeconds)
    : null;
  const sc = ptr(spec.securityContext);
  // v1's spec.hostUsers is the internal PodSecurityContext.HostUsers; unset means true.
  const hostUsers = !isSet(spec.hostUsers) || spec.hostUsers === true;
  const { vols, errs: volErrs } = validateVolumes(spec.volumes, podName, `${path}.volumes`, ctx);
  errs.push(...volErrs);
  const podClaimNames = new Set(
    objects(spec.resourceClaims)
      .map((c) => str(c.name))
      .filter((n) => n !== ""),
  );
  errs.push(...validatePodResourceClaims(spec.resourceClaims, mirror, `${path}.resourceClaims`));
  const pod: PodScope = {
    volumes: vols,
    podClaimNames,
    gracePeriod,
    restartPolicy: str(spec.restartPolicy),
    hostUsers,
    os: ptr(spec.os),
    ctx,
  };
  errs.push(...validateContainers(spec.containers, `${path}.containers`, pod));
  errs.push(
    ...validateInitContainers(spec.initContainers, spec.containers, `${path}.initContainers`, pod),
  );
  errs.push(
    ...validateEphemeralContainers(
      spec.ephemeralContainers,
      spec.containers,
      spec.initContainers,
      `${path}.ephemeralContainers`,
      pod,
    ),
  );
  if (ctx.opts.PodLevelResourcesEnabled)
    errs.push(...validatePodResources(spec, podClaimNames, path, ctx));
  errs.push(...validatePodHostNetworkDeps(spec, path, ctx));
  errs.push(...validateEnum(spec.restartPolicy, `${path}.restartPolicy`, restartPolicies));
  errs.push(...validateEnum(spec.dnsPolicy, `${path}.dnsPolicy`, dnsPolicies));
  errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  errs.push(...validatePodSpecSecurityContext(sc, spec, `${path}.securityContext`, ctx));
  if (ctx.minor >= 37)
    errs.push(...validateShareProcessNamespace(spec, `${path}.shareProcessNamespace`));
  errs.push(...validateImagePullSecrets(spec.imagePullSecrets, `${path}.imagePullSecrets`));
  errs.push(...validateAffinity(spec.affinity, ctx, `${path}.affinity`));
  errs.push(...validatePodDNSConfig(spec.dnsConfig, str(spec.dnsPolicy), `${path}.dnsConfig`, ctx));
  errs.push(...validateReadinessGates(spec.readinessGates, `${path}.readinessGates`));
  errs.push(...validateSchedulingGates(spec.schedulingGates, `${path}.schedulingGates`));
  errs.push(
    ...validateTopologySpreadConstraints(
      spec.topologySpreadConstraints,
      `${path}.topologySpreadConstraints`,
      ctx,
    ),
  );
  errs.push(...validateWindowsHostProcessPod(spec, path));
  errs.push(...validateHostUsers(spec, path, ctx));
  if (ctx.minor >= 34) errs.push(...validatePodHostName(spec, path));
  const serviceAccountName = str(spec.serviceAccountName);
  if (serviceAccountName.length > 0)
    for (const msg of nameIsDNSSubdomain(serviceAccountName, false))
      errs.push(invalid(`${path}.serviceAccountName`, serviceAccountName, msg));
  const nodeName = str(spec.nodeName);
  if (nodeName.length > 0)
    for (const msg of nameIsDNSSubdomain(nodeName, false))
      errs.push(invalid(`${path}.nodeName`, nodeName, msg));
  if (isSet(spec.activeDeadlineSeconds)) {
    const value = num(spec.activeDeadlineSeconds);
    if (value < 1 || value > maxInt32)
      errs.push(invalid(`${path}.activeDeadlineSeconds`, value, inclusiveRangeError(1, maxInt32)));
  }
  const hostname = str(spec.hostname);
  if (hostname.length > 0) errs.push(...validateDNS1123Label(hostname, `${path}.hostname`));
  const subdomain = str(spec.subdomain);
  if (subdomain.length > 0) errs.push(...validateDNS1123Label(subdomain, `${path}.subdomain`));
  if (objects(spec.tolerations).length > 0)
    errs.push(...validateTolerations(spec.tolerations, `${path}.tolerations`, ctx.minor));
  if (objects(spec.hostAliases).length > 0)
    errs.push(...validateHostAliases(spec.hostAliases, `${path}.hostAliases`, ctx));
  const priorityClassName = str(spec.priorityClassName);
  if (priorityClassName.length > 0)
    for (const msg of nameIsDNSSubdomain(priorityClassName, false))
      errs.push(invalid(`${path}.priorityClassName`, priorityClassName, msg));
  if (isSet(spec.runtimeClassName)) {
    const name = str(spec.runtimeClassName);
    for (const msg of nameIsDNSSubdomain(name, false))
      errs.push(invalid(`${path}.runtimeClassName`, name, msg));
  }
  if (isSet(spec.preemptionPolicy))
    errs.push(
      ...validateEnum(spec.preemptionPolicy, `${path}.preemptionPolicy`, [
        "PreemptLowerPriority",
        "Never",
      ]),
    );
  if (isSet(spec.overhead)) errs.push(...validateOverhead(spec.overhead, `${path}.overhead`, ctx));
  errs.push(...validateOS(spec, path, ctx));
  const workloadRef = ptr(spec.workloadRef);
  if (ctx.minor === 35 && workloadRef)
    errs.push(...validateWorkloadReference(workloadRef, `${path}.workloadRef`));
  const schedulingGroup = ptr(spec.schedulingGroup);
  if (ctx.minor >= 36 && schedulingGroup) {
    errs.push(...validateSchedulingGroup(schedulingGroup, `${path}.schedulingGroup`));
    if (ctx.minor >= 37 && objects(spec.evictionResponders).length > 0)
      errs.push(
        forbidden(`${path}.schedulingGroup`, "may not be set when evictionResponders is set"),
      );
  }
  if (ctx.minor >= 34) errs.push(...validateFileKeyRefVolumes(spec, path));
  return errs;
}
