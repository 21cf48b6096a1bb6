// What the kubelet refuses in a static pod after ValidatePodCreate (pkg/kubelet/config/
// common.go). Up to 1.33: a projected clusterTrustBundle source, then resource claims. From
// 1.34 (PreventStaticPodAPIReferences, beta and on; unconditional in 1.37): any reference to
// an API object, podutil.HasAPIObjectReference, in its order.
import type { JsonObject } from "../json_object.js";
import { goQuote } from "./field.js";
import { objects, ptr, str } from "./validation_json.js";
import { visitContainers } from "./validation_security.js";

/** The error tryDecodeSinglePod returns for the pod, or null. */
export function staticPodReferenceError(spec: JsonObject, minor: number): string | null {
  if (minor < 34) {
    for (const v of objects(spec.volumes)) {
      const projected = ptr(v.projected);
      if (!projected) continue;
      for (const s of objects(projected.sources))
        if (ptr(s.clusterTrustBundle))
          return "static pods may not use ClusterTrustBundle projected volume sources";
    }
    if (objects(spec.resourceClaims).length > 0) return "static pods may not use ResourceClaims";
    return null;
  }
  const found = apiObjectReference(spec);
  if (found === null) return null;
  return "error" in found ? found.error : `static pods may not reference ${found.resource}`;
}

/** Whether any container or the pod names a secret (VisitPodSecretNames, empty names skipped). */
function hasSecretName(spec: JsonObject): boolean {
  if (objects(spec.imagePullSecrets).some((r) => str(r.name) !== "")) return true;
  for (const [c] of visitContainers(spec, "spec")) {
    if (objects(c.envFrom).some((e) => str(ptr(e.secretRef)?.name) !== "")) return true;
    if (objects(c.env).some((e) => str(ptr(ptr(e.valueFrom)?.secretKeyRef)?.name) !== ""))
      return true;
  }
  for (const v of objects(spec.volumes)) {
    // The first source set decides, as the visitor's switch does.
    const name = (() => {
      if (ptr(v.azureFile)) return str(ptr(v.azureFile)?.secretName);
      for (const kind of ["cephfs", "cinder", "flexVolume"])
        if (ptr(v[kind])) return str(ptr(ptr(v[kind])?.secretRef)?.name);
      if (ptr(v.projected))
        return (
          objects(ptr(v.projected)?.sources)
            .map((s) => (ptr(s.secret) ? str(ptr(s.secret)?.name) : ""))
            .find((n) => n !== "") ?? ""
        );
      if (ptr(v.rbd)) return str(ptr(ptr(v.rbd)?.secretRef)?.name);
      if (ptr(v.secret)) return str(ptr(v.secret)?.secretName);
      for (const kind of ["scaleIO", "iscsi", "storageos"])
        if (ptr(v[kind])) return str(ptr(ptr(v[kind])?.secretRef)?.name);
      if (ptr(v.csi)) return str(ptr(ptr(v.csi)?.nodePublishSecretRef)?.name);
      return "";
    })();
    if (name !== "") return true;
  }
  return false;
}

function hasConfigMapName(spec: JsonObject): boolean {
  for (const [c] of visitContainers(spec, "spec")) {
    if (objects(c.envFrom).some((e) => str(ptr(e.configMapRef)?.name) !== "")) return true;
    if (objects(c.env).some((e) => str(ptr(ptr(e.valueFrom)?.configMapKeyRef)?.name) !== ""))
      return true;
  }
  for (const v of objects(spec.volumes)) {
    if (ptr(v.projected)) {
      if (objects(ptr(v.projected)?.sources).some((s) => str(ptr(s.configMap)?.name) !== ""))
        return true;
    } else if (ptr(v.configMap) && str(ptr(v.configMap)?.name) !== "") return true;
  }
  return false;
}

const apiFreeVolumeSources = [
  "awsElasticBlockStore",
  "azureDisk",
  "cephfs",
  "cinder",
  "downwardAPI",
  "emptyDir",
  "fc",
  "flexVolume",
  "flocker",
  "gcePersistentDisk",
  "gitRepo",
  "hostPath",
  "image",
  "iscsi",
  "nfs",
  "photonPersistentDisk",
  "portworxVolume",
  "quobyte",
  "rbd",
  "scaleIO",
  "storageos",
  "vsphereVolume",
];
const volumeReferences: [string, string][] = [
  ["configMap", "configmaps (via configmap volumes)"],
  ["secret", "secrets (via secret volumes)"],
  ["csi", "csidrivers (via CSI volumes)"],
  ["glusterfs", "endpoints (via glusterFS volumes)"],
  ["persistentVolumeClaim", "persistentvolumeclaims"],
  ["ephemeral", "persistentvolumeclaims (via ephemeral volumes)"],
  ["azureFile", "secrets (via azureFile volumes)"],
];
const projectedReferences: [string, string][] = [
  ["configMap", "configmaps (via projected volumes)"],
  ["secret", "secrets (via projected volumes)"],
  ["serviceAccountToken", "serviceaccounts (via projected volumes)"],
  ["clusterTrustBundle", "clustertrustbundles"],
  ["podCertificate", "podcertificates"],
];

type Reference = { resource: string } | { error: string };

/** podutil.HasAPIObjectReference: the resource referenced, its error, or null. */
function apiObjectReference(spec: JsonObject): Reference | null {
  if (str(spec.serviceAccountName) !== "") return { resource: "serviceaccounts" };
  if (hasSecretName(spec)) return { resource: "secrets" };
  if (hasConfigMapName(spec)) return { resource: "configmaps" };
  if (objects(spec.resourceClaims).length > 0) return { resource: "resourceclaims" };
  for (const v of objects(spec.volumes)) {
    if (apiFreeVolumeSources.some((kind) => ptr(v[kind]))) continue;
    const reference = volumeReferences.find(([kind]) => ptr(v[kind]));
    if (reference) return { resource: reference[1] };
    const projected = ptr(v.projected);
    if (!projected) return { error: `unknown volume type for volume  ${goQuote(str(v.name))}` };
    for (const s of objects(projected.sources)) {
      const found = projectedReferences.find(([kind]) => ptr(s[kind]));
      if (found) return { resource: found[1] };
      if (!ptr(s.downwardAPI))
        return { error: `unknown source for projected volume ${goQuote(str(v.name))}` };
    }
  }
  return null;
}
