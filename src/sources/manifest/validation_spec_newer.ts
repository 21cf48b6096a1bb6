// The pod spec rules ValidatePodSpec gained from 1.34 on (validation.go of each release in the
// module cache): validatePodHostName and validateFileKeyRefVolumes (1.34), validateWorkloadReference
// (1.35 only: 1.36 replaced workloadRef with schedulingGroup), validateSchedulingGroup (1.36). Each runs whatever the feature gate says: the kubelet does not drop disabled fields
// of a static pod, so a field that decodes is validated.
import type { JsonObject } from "../json_object.js";
import { type ErrorList, forbidden, invalid, notFound, tooLong } from "./field.js";
import { bool, isSet, objects, ptr, str } from "./validation_json.js";
import {
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateDNS1123Subdomain,
} from "./validation_names.js";

/** validatePodHostName (1.34+): spec.hostnameOverride. */
export function validatePodHostName(spec: JsonObject, path: string): ErrorList {
  if (!isSet(spec.hostnameOverride)) return [];
  const at = `${path}.hostnameOverride`;
  const errs: ErrorList = [];
  if (spec.setHostnameAsFQDN === true)
    errs.push(forbidden(at, "may not be specified when setHostnameAsFQDN is true"));
  if (bool(spec.hostNetwork))
    errs.push(forbidden(at, "may not be specified when hostNetwork is true"));
  const override = str(spec.hostnameOverride);
  // Go's len(): bytes.
  if (Buffer.byteLength(override, "utf8") > 64) errs.push(tooLong(at, 64));
  errs.push(...validateDNS1123Subdomain(override, at));
  return errs;
}

/** podshelper.VisitContainersWithPath's order: init, regular, ephemeral containers. */
function containersWithPath(spec: JsonObject, path: string): [JsonObject, string][] {
  const out: [JsonObject, string][] = [];
  for (const kind of ["initContainers", "containers", "ephemeralContainers"])
    objects(spec[kind]).forEach((c, i) => {
      out.push([c, `${path}.${kind}[${i}]`]);
    });
  return out;
}

/** validateFileKeyRefVolumes (1.34+): a fileKeyRef names an emptyDir volume of the pod. */
export function validateFileKeyRefVolumes(spec: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const volumes = new Map<string, JsonObject>();
  for (const v of objects(spec.volumes)) volumes.set(str(v.name), v);
  for (const [c, at] of containersWithPath(spec, path))
    objects(c.env).forEach((env, j) => {
      const ref = ptr(ptr(env.valueFrom)?.fileKeyRef);
      if (!ref) return;
      const volumeName = str(ref.volumeName);
      const namePath = `${at}.env[${j}].valueFrom.fileKeyRef.volumeName`;
      const volume = volumes.get(volumeName);
      if (!volume) errs.push(notFound(namePath, volumeName));
      else if (!ptr(volume.emptyDir))
        errs.push(invalid(namePath, volumeName, "referenced volume must be of type emptyDir"));
    });
  return errs;
}

/**
 * validateWorkloadReference (1.35): the name a DNS subdomain (ValidateWorkloadName), the pod
 * group a DNS label (ValidatePodGroupName), both checked even when empty; the replica key a
 * DNS label when set (ValidatePodGroupReplicaKey).
 */
export function validateWorkloadReference(ref: JsonObject, path: string): ErrorList {
  const name = str(ref.name);
  const podGroup = str(ref.podGroup);
  const errs: ErrorList = [
    ...nameIsDNSSubdomain(name, false).map((msg) => invalid(`${path}.name`, name, msg)),
    ...nameIsDNSLabel(podGroup, false).map((msg) => invalid(`${path}.podGroup`, podGroup, msg)),
  ];
  const key = str(ref.podGroupReplicaKey);
  if (key !== "")
    for (const msg of nameIsDNSLabel(key, false))
      errs.push(invalid(`${path}.podGroupReplicaKey`, key, msg));
  return errs;
}

/** validateSchedulingGroup (1.36+): a podGroupName that is a DNS subdomain. */
export function validateSchedulingGroup(group: JsonObject, path: string): ErrorList {
  const at = `${path}.podGroupName`;
  if (!isSet(group.podGroupName)) return [invalid(at, null, "must specify one of: `podGroupName`")];
  const name = str(group.podGroupName);
  return nameIsDNSSubdomain(name, false).map((msg) => invalid(at, name, msg));
}
