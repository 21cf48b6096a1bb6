// The API's defaults for a v1 Pod, as the kubelet's decoder applies them to a static pod before
// anything else sees it: SetObjectDefaults_Pod (pkg/apis/core/v1/zz_generated.defaults.go) and
// the SetDefaults_* functions it calls (defaults.go), per claimed minor with its default feature
// gates (pkg/features): what differs between 1.32 and 1.37 is marked with the minor. In place,
// on the typed decoder's Go value (typed.ts): a Go zero value (absent, "" or 0 for a
// non-pointer field) gets the default, as a nil pointer (absent) does.
import { atLeast, type KubeletMinor } from "../../core/version.js";
import { isObject, type JsonObject } from "../json_object.js";
import { imageTag } from "./image.js";
import { setData } from "./json.js";
import type { Quantity } from "./quantity.js";
import {
  aggregateContainerResources,
  isHugePageResourceName,
  isOvercommitAllowed,
  isSupportedPodLevelResource,
} from "./validation_resources.js";

type Defaults = (object: JsonObject) => void;

const isUnset = (value: unknown): boolean => value === undefined || value === null;
const isZero = (value: unknown): boolean => isUnset(value) || value === "" || value === 0;

/** Sets `field` to `value` where Go would see a zero string or number (non-pointer field). */
function defaultZero(object: JsonObject, field: string, value: unknown): void {
  if (isZero(object[field])) object[field] = value;
}

/** Sets `field` to `value` where Go would see a nil pointer. */
function defaultNil(object: JsonObject, field: string, value: unknown): void {
  if (isUnset(object[field])) object[field] = value;
}

/** Applies `defaults` to `object[field]` when it is an object (a non-nil pointer or a struct). */
function within(object: JsonObject, field: string, defaults: Defaults): void {
  const value = object[field];
  if (isObject(value)) defaults(value);
}

/** Applies `defaults` to every object of the list `object[field]`. */
function eachOf(object: JsonObject, field: string, defaults: Defaults): void {
  const list = object[field];
  if (!Array.isArray(list)) return;
  for (const item of list) if (isObject(item)) defaults(item);
}

/** v1.SecretVolumeSourceDefaultMode and its siblings: 0644. */
const DefaultMode = 0o644;

const objectFieldSelector: Defaults = (ref) => defaultZero(ref, "apiVersion", "v1");
const downwardAPIItems: Defaults = (source) =>
  eachOf(source, "items", (item) => within(item, "fieldRef", objectFieldSelector));

/**
 * SetDefaults_ResourceList: every quantity rounded up to a milli unit (a finer one is rounded
 * away from zero and loses its spelling).
 */
function resourceList(object: JsonObject, field: string): void {
  const list = object[field];
  if (!isObject(list)) return;
  for (const key of Object.keys(list)) setData(list, key, (list[key] as Quantity).roundUp(-3));
}

const resourceRequirements: Defaults = (r) => {
  resourceList(r, "limits");
  resourceList(r, "requests");
};

/** The fields of v1.VolumeSource: all pointers; a volume with none is an emptyDir. */
export const volumeSourceFields = [
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "projected",
  "portworxVolume",
  "scaleIO",
  "storageos",
  "csi",
  "ephemeral",
  "image",
] as const;

/** SetDefaults_Volume and the defaults of each volume source (SetObjectDefaults_Pod's order). */
const volume =
  (minor: KubeletMinor): Defaults =>
  (v) => {
    if (volumeSourceFields.every((field) => isUnset(v[field]))) v.emptyDir = {};
    // ImageVolume: on by default from 1.35.
    if (atLeast(minor, "1.35"))
      within(v, "image", (image) => {
        if (isZero(image.pullPolicy))
          image.pullPolicy =
            imageTag(typeof image.reference === "string" ? image.reference : "") === "latest"
              ? "Always"
              : "IfNotPresent";
      });
    within(v, "hostPath", (s) => defaultNil(s, "type", "")); // HostPathUnset
    within(v, "secret", (s) => defaultNil(s, "defaultMode", DefaultMode));
    within(v, "iscsi", (s) => defaultZero(s, "iscsiInterface", "default"));
    within(v, "rbd", (s) => {
      defaultZero(s, "pool", "rbd");
      defaultZero(s, "user", "admin");
      defaultZero(s, "keyring", "/etc/ceph/keyring");
    });
    within(v, "downwardAPI", (s) => {
      defaultNil(s, "defaultMode", DefaultMode);
      downwardAPIItems(s);
    });
    within(v, "configMap", (s) => defaultNil(s, "defaultMode", DefaultMode));
    within(v, "azureDisk", (s) => {
      defaultNil(s, "cachingMode", "ReadWrite");
      defaultNil(s, "fsType", "ext4");
      defaultNil(s, "readOnly", false);
      defaultNil(s, "kind", "Shared");
    });
    within(v, "projected", (s) => {
      defaultNil(s, "defaultMode", DefaultMode);
      eachOf(s, "sources", (projection) => {
        within(projection, "downwardAPI", downwardAPIItems);
        within(projection, "serviceAccountToken", (t) => defaultNil(t, "expirationSeconds", 3600));
      });
    });
    within(v, "scaleIO", (s) => {
      defaultZero(s, "storageMode", "ThinProvisioned");
      defaultZero(s, "fsType", "xfs");
    });
    within(v, "ephemeral", (e) =>
      within(e, "volumeClaimTemplate", (t) => {
        // The template's spec is a struct, not a pointer: defaulted even when absent.
        const spec: JsonObject = isObject(t.spec) ? t.spec : {};
        t.spec = spec;
        defaultNil(spec, "volumeMode", "Filesystem");
        within(spec, "resources", resourceRequirements);
      }),
    );
  };

/** SetDefaults_HTTPGetAction. */
const httpGet: Defaults = (action) => {
  defaultZero(action, "path", "/");
  defaultZero(action, "scheme", "HTTP");
};

/** SetDefaults_Probe, its HTTPGetAction and GRPCAction.service (declared `+default=""`). */
const probe: Defaults = (p) => {
  defaultZero(p, "timeoutSeconds", 1);
  defaultZero(p, "periodSeconds", 10);
  defaultZero(p, "successThreshold", 1);
  defaultZero(p, "failureThreshold", 3);
  within(p, "httpGet", httpGet);
  within(p, "grpc", (g) => defaultNil(g, "service", ""));
};

/** SetDefaults_Container, then its ports, env, resources, probes and lifecycle handlers. */
const container =
  (minor: KubeletMinor): Defaults =>
  (c) => {
    if (isZero(c.imagePullPolicy))
      c.imagePullPolicy =
        imageTag(typeof c.image === "string" ? c.image : "") === "latest"
          ? "Always"
          : "IfNotPresent";
    defaultZero(c, "terminationMessagePath", "/dev/termination-log");
    defaultZero(c, "terminationMessagePolicy", "File");
    eachOf(c, "ports", (port) => defaultZero(port, "protocol", "TCP"));
    eachOf(c, "env", (env) =>
      within(env, "valueFrom", (from) => {
        within(from, "fieldRef", objectFieldSelector);
        // EnvFiles: fileKeyRef.optional defaults to false from 1.34.
        if (atLeast(minor, "1.34"))
          within(from, "fileKeyRef", (ref) => defaultNil(ref, "optional", false));
      }),
    );
    within(c, "resources", resourceRequirements);
    for (const field of ["livenessProbe", "readinessProbe", "startupProbe"])
      within(c, field, probe);
    within(c, "lifecycle", (lifecycle) => {
      within(lifecycle, "postStart", (h) => within(h, "httpGet", httpGet));
      within(lifecycle, "preStop", (h) => within(h, "httpGet", httpGet));
    });
  };

/** SetDefaults_Pod's part for one container list: requests default to limits. */
function requestsFromLimits(containers: unknown): void {
  if (!Array.isArray(containers)) return;
  for (const c of containers) {
    if (!isObject(c) || !isObject(c.resources) || !isObject(c.resources.limits)) continue;
    const { resources } = c;
    const limits = resources.limits as JsonObject;
    if (!isObject(resources.requests)) resources.requests = {};
    const requests = resources.requests as JsonObject;
    for (const key of Object.keys(limits))
      if (!Object.hasOwn(requests, key)) setData(requests, key, limits[key]);
  }
}

const size = (map: unknown): number => (isObject(map) ? Object.keys(map).length : 0);

/**
 * defaultHugePagePodLimits: a pod-level hugepage limit the pod sets neither as a limit nor as a
 * request defaults to the containers' aggregated limit, once spec.resources sets anything.
 */
function hugePagePodLimits(spec: JsonObject, resources: JsonObject): void {
  if (size(resources.limits) === 0 && size(resources.requests) === 0) return;
  const limits = isObject(resources.limits) ? resources.limits : {};
  const requests = isObject(resources.requests) ? resources.requests : {};
  for (const [name, aggregate] of aggregateContainerResources(spec, "limits")) {
    if (!isSupportedPodLevelResource(name) || !isHugePageResourceName(name)) continue;
    if (Object.hasOwn(requests, name)) continue;
    if (!Object.hasOwn(limits, name)) setData(limits, name, aggregate);
  }
  if (size(limits) > 0) resources.limits = limits;
}

/**
 * defaultPodRequests, once spec.resources has limits: a pod-level request not set defaults to
 * the containers' aggregated request (cpu and memory, the overcommittable supported ones),
 * else to the pod-level limit (hugepages included).
 */
function podRequests(spec: JsonObject, resources: JsonObject): void {
  if (size(resources.limits) === 0) return;
  const limits = resources.limits as JsonObject;
  const requests = isObject(resources.requests) ? resources.requests : {};
  for (const [name, aggregate] of aggregateContainerResources(spec, "requests")) {
    if (Object.hasOwn(requests, name)) continue;
    if (isSupportedPodLevelResource(name) && isOvercommitAllowed(name))
      setData(requests, name, aggregate);
  }
  for (const name of Object.keys(limits)) {
    if (!Object.hasOwn(requests, name) && isSupportedPodLevelResource(name))
      setData(requests, name, limits[name]);
  }
  if (size(requests) > 0) resources.requests = requests;
}

/** defaultHostNetworkPorts: with host networking a port's hostPort defaults to its containerPort. */
function hostNetworkPorts(containers: unknown): void {
  if (!Array.isArray(containers)) return;
  for (const c of containers)
    if (isObject(c))
      eachOf(c, "ports", (port) => {
        // Go copies a zero containerPort as well: nothing changes then.
        if (!isZero(port.containerPort)) defaultZero(port, "hostPort", port.containerPort);
      });
}

/** The resource lists of one list of container statuses. */
function containerStatuses(status: JsonObject, field: string): void {
  eachOf(status, field, (s) => {
    resourceList(s, "allocatedResources");
    within(s, "resources", resourceRequirements);
  });
}

/** SetObjectDefaults_Pod of `minor`: `pod.spec` is created when absent (a Go struct always exists). */
export function setObjectDefaultsPod(pod: JsonObject, minor: KubeletMinor): void {
  const spec: JsonObject = isObject(pod.spec) ? pod.spec : {};
  pod.spec = spec;
  // SetDefaults_Pod
  requestsFromLimits(spec.containers);
  requestsFromLimits(spec.initContainers);
  // After the containers' requests, before any list is rounded (SetDefaults_ResourceList runs
  // later): PodLevelResources is on from 1.34, and from 1.37 PodLevelResourcesFixDefaulting
  // (on) leaves the pod-level lists as the pod gives them.
  if (atLeast(minor, "1.34") && !atLeast(minor, "1.37") && isObject(spec.resources)) {
    hugePagePodLimits(spec, spec.resources);
    podRequests(spec, spec.resources);
  }
  defaultNil(spec, "enableServiceLinks", true);
  if (spec.hostNetwork === true) {
    hostNetworkPorts(spec.containers);
    hostNetworkPorts(spec.initContainers);
  }
  // SetDefaults_PodSpec
  defaultZero(spec, "dnsPolicy", "ClusterFirst");
  defaultZero(spec, "restartPolicy", "Always");
  defaultNil(spec, "securityContext", {});
  defaultNil(spec, "terminationGracePeriodSeconds", 30);
  defaultZero(spec, "schedulerName", "default-scheduler");
  eachOf(spec, "volumes", volume(minor));
  eachOf(spec, "initContainers", container(minor));
  eachOf(spec, "containers", container(minor));
  eachOf(spec, "ephemeralContainers", container(minor));
  resourceList(spec, "overhead");
  within(spec, "resources", resourceRequirements);
  const status = isObject(pod.status) ? pod.status : undefined;
  if (!status) return;
  containerStatuses(status, "initContainerStatuses");
  containerStatuses(status, "containerStatuses");
  containerStatuses(status, "ephemeralContainerStatuses");
  if (atLeast(minor, "1.35")) {
    resourceList(status, "allocatedResources");
    within(status, "resources", resourceRequirements);
  }
}
