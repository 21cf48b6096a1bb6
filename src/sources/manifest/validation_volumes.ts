// Pod volumes (validation.go: ValidateVolumes, validateVolumeSource and each source's
// validator, projections and the downward API volume; the path rules are validation_paths.ts).
import type { JsonObject } from "../json_object.js";
import {
  byteLength,
  duplicate,
  type ErrorList,
  forbidden,
  goInternalJSON,
  goStrings,
  inclusiveRangeError,
  invalid,
  isDNS1123Subdomain,
  notSupported,
  required,
  tooLong,
} from "./field.js";
import { validateClaimTemplate } from "./validation_claim_template.js";
import {
  downwardAPIHugePagesPrefixes,
  validateContainerResourceFieldSelector,
  validateObjectFieldSelector,
  validContainerResourceFieldPathExpressions,
  validVolumeDownwardAPIFieldPathExpressions,
} from "./validation_env.js";
import {
  bool,
  entries,
  isSet,
  num,
  objects,
  orNull,
  ptr,
  str,
  strings,
} from "./validation_json.js";
import {
  nameIsDNSSubdomain,
  validateDNS1123Label,
  validateLabelSelector,
} from "./validation_names.js";
import type { ValidationContext } from "./validation_options.js";
import {
  isAbs,
  validateLocalDescendingPath,
  validateLocalNonReservedPath,
  validatePathNoBacksteps,
  validateUserField,
} from "./validation_paths.js";
import {
  validatePodCertificateProjection,
  validateSignerName,
} from "./validation_pod_certificate.js";
import { quantityOf } from "./validation_resources.js";

/** A pod's valid volumes by name (ValidateVolumes's map), for mounts and devices. */
export type VolumeMap = Map<string, JsonObject>;

const fileModeErrorMsg = "must be a number between 0 and 0777 (octal), both inclusive";
const pdPartitionErrorMsg = inclusiveRangeError(1, 255);
const iscsiInitiatorIqnRegex = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/;
const iscsiInitiatorEuiRegex = /^eui.[A-Za-z0-9]{16}$/;
const iscsiInitiatorNaaRegex = /^naa.[A-Za-z0-9]{32}$/;

/** ValidateVolumes. */
export function validateVolumes(
  volumes: unknown,
  podName: string,
  path: string,
  ctx: ValidationContext,
): { vols: VolumeMap; errs: ErrorList } {
  const errs: ErrorList = [];
  const allNames = new Set<string>();
  const createdPVCs = new Set<string>();
  const items = objects(volumes);
  if (podName !== "")
    for (const vol of items) if (ptr(vol.ephemeral)) createdPVCs.add(`${podName}-${str(vol.name)}`);
  const vols: VolumeMap = new Map();
  // The volumes as decoded, where a rule tells an empty list from a nil one.
  const decoded = objects(ptr(ctx.decoded?.spec)?.volumes);
  items.forEach((vol, i) => {
    const at = `${path}[${i}]`;
    const name = str(vol.name);
    const el = validateVolumeSource(vol, at, name, podName, ctx, decoded[i] ?? vol);
    if (name.length === 0) el.push(required(`${at}.name`));
    else el.push(...validateDNS1123Label(name, `${at}.name`));
    if (allNames.has(name)) el.push(duplicate(`${at}.name`, name));
    if (el.length === 0) {
      allNames.add(name);
      vols.set(name, vol);
    } else errs.push(...el);
    const pvc = ptr(vol.persistentVolumeClaim);
    if (pvc && createdPVCs.has(str(pvc.claimName)))
      errs.push(
        invalid(
          `${at}.persistentVolumeClaim.claimName`,
          str(pvc.claimName),
          "must not reference a PVC that gets created for an ephemeral volume",
        ),
      );
  });
  return { vols, errs };
}

type SourceValidator = (
  source: JsonObject,
  path: string,
  volName: string,
  podName: string,
  ctx: ValidationContext,
  /** The same source as decoded. */
  decoded: JsonObject,
) => ErrorList;

/**
 * validateVolumeSource's sources in its order: [field, the child path its validator is given
 * when it differs (upstream's spellings), the validator].
 */
const sources: [string, string | null, SourceValidator][] = [
  ["emptyDir", null, (s, p) => validateEmptyDir(s, p)],
  ["hostPath", null, (s, p) => validateHostPathVolumeSource(s, `${p}.hostPath`)],
  ["gitRepo", null, (s, p) => validateGitRepoVolumeSource(s, `${p}.gitRepo`)],
  ["gcePersistentDisk", null, (s, p) => validatePD(s, `${p}.persistentDisk`, "pdName")],
  ["awsElasticBlockStore", null, (s, p) => validatePD(s, `${p}.awsElasticBlockStore`, "volumeID")],
  ["secret", null, (s, p) => validateKeyedVolumeSource(s, `${p}.secret`, "secretName")],
  ["nfs", null, (s, p) => validateNFSVolumeSource(s, `${p}.nfs`)],
  ["iscsi", null, (s, p, v) => validateISCSIVolumeSource(s, p, v)],
  ["glusterfs", null, (s, p) => requiredFields(s, `${p}.glusterfs`, ["endpoints", "path"])],
  ["flocker", null, (s, p) => validateFlockerVolumeSource(s, `${p}.flocker`)],
  [
    "persistentVolumeClaim",
    null,
    (s, p) => requiredFields(s, `${p}.persistentVolumeClaim`, ["claimName"]),
  ],
  ["rbd", null, (s, p) => validateRBDVolumeSource(s, `${p}.rbd`)],
  ["cinder", null, (s, p) => validateCinderVolumeSource(s, `${p}.cinder`)],
  ["cephfs", "cephFS", (s, p) => requiredList(s, `${p}.cephfs`, "monitors")],
  ["quobyte", null, (s, p) => validateQuobyteVolumeSource(s, `${p}.quobyte`)],
  ["downwardAPI", "downwarAPI", (s, p) => validateDownwardAPIVolumeSource(s, `${p}.downwardAPI`)],
  ["fc", null, (s, p) => validateFCVolumeSource(s, `${p}.fc`)],
  ["flexVolume", null, (s, p) => validateFlexVolumeSource(s, `${p}.flexVolume`)],
  ["configMap", null, (s, p) => validateKeyedVolumeSource(s, `${p}.configMap`, "name")],
  ["azureFile", null, (s, p) => requiredFields(s, `${p}.azureFile`, ["secretName", "shareName"])],
  ["vsphereVolume", null, (s, p) => requiredFields(s, `${p}.vsphereVolume`, ["volumePath"])],
  [
    "photonPersistentDisk",
    null,
    (s, p) => requiredFields(s, `${p}.photonPersistentDisk`, ["pdID"]),
  ],
  ["portworxVolume", null, (s, p) => requiredFields(s, `${p}.portworxVolume`, ["volumeID"])],
  ["azureDisk", null, (s, p) => validateAzureDisk(s, `${p}.azureDisk`)],
  ["storageos", null, (s, p) => validateStorageOSVolumeSource(s, `${p}.storageos`)],
  [
    "projected",
    null,
    (s, p, _v, _n, ctx) => validateProjectedVolumeSource(s, `${p}.projected`, ctx),
  ],
  [
    "scaleIO",
    null,
    (s, p) => requiredFields(s, `${p}.scaleIO`, ["gateway", "system", "volumeName"]),
  ],
  ["csi", null, (s, p, _v, _n, ctx) => validateCSIVolumeSource(s, `${p}.csi`, ctx)],
  ["ephemeral", null, (s, p, v, n, ctx, d) => validateEphemeralVolumeSource(s, p, v, n, ctx, d)],
  ["image", null, (s, p, _v, _n, ctx) => validateImageVolumeSource(s, `${p}.image`, ctx)],
];

function validateVolumeSource(
  vol: JsonObject,
  path: string,
  volName: string,
  podName: string,
  ctx: ValidationContext,
  decodedVolume: JsonObject,
): ErrorList {
  let numVolumes = 0;
  const errs: ErrorList = [];
  for (const [field, forbiddenName, validate] of sources) {
    const source = ptr(vol[field]);
    if (!source) continue;
    // emptyDir is counted before the "more than one" check exists (it is first).
    if (numVolumes > 0 && field !== "emptyDir") {
      errs.push(
        forbidden(`${path}.${forbiddenName ?? field}`, "may not specify more than 1 volume type"),
      );
    } else {
      numVolumes++;
      errs.push(
        ...validate(source, path, volName, podName, ctx, ptr(decodedVolume[field]) ?? source),
      );
    }
    // The initiator name check of iscsi runs whether or not it was the first source.
    if (field === "iscsi" && source.initiatorName !== undefined && source.initiatorName !== null) {
      if (byteLength(`${volName}:${str(source.targetPortal)}`) > 64)
        errs.push(
          invalid(
            `${path}.name`,
            volName,
            "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
          ),
        );
    }
  }
  if (numVolumes === 0) errs.push(required(path, "must specify a volume type"));
  return errs;
}

function requiredFields(source: JsonObject, path: string, fields: string[]): ErrorList {
  return fields.filter((f) => str(source[f]).length === 0).map((f) => required(`${path}.${f}`));
}

function requiredList(source: JsonObject, path: string, field: string): ErrorList {
  return strings(source[field]).length === 0 ? [required(`${path}.${field}`)] : [];
}

function validateEmptyDir(source: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  if (isSet(source.sizeLimit) && quantityOf(source.sizeLimit).sign() < 0)
    errs.push(
      forbidden(`${path}.emptyDir.sizeLimit`, "SizeLimit field must be a valid resource quantity"),
    );
  // 1.37's mode (absent from older schemas, so dropped by the decode there).
  if (isSet(source.mode) && (num(source.mode) > 0o1777 || num(source.mode) < 0))
    errs.push(
      invalid(
        `${path}.emptyDir.mode`,
        num(source.mode),
        "must be a number between 0 and 01777 (octal), both inclusive",
      ),
    );
  return errs;
}

const supportedHostPathTypes = [
  "",
  "BlockDevice",
  "CharDevice",
  "Directory",
  "DirectoryOrCreate",
  "File",
  "FileOrCreate",
  "Socket",
];

function validateHostPathVolumeSource(hostPath: JsonObject, path: string): ErrorList {
  const p = str(hostPath.path);
  if (p.length === 0) return [required(`${path}.path`)];
  const errs = validatePathNoBacksteps(p, `${path}.path`);
  if (isSet(hostPath.type) && !supportedHostPathTypes.includes(str(hostPath.type)))
    errs.push(notSupported(`${path}.type`, str(hostPath.type), supportedHostPathTypes));
  return errs;
}

function validateGitRepoVolumeSource(gitRepo: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  if (str(gitRepo.repository).length === 0) errs.push(required(`${path}.repository`));
  errs.push(...validateLocalDescendingPath(str(gitRepo.directory), `${path}.directory`));
  return errs;
}

function validatePD(pd: JsonObject, path: string, idField: string): ErrorList {
  const errs: ErrorList = [];
  if (str(pd[idField]).length === 0) errs.push(required(`${path}.${idField}`));
  const partition = num(pd.partition);
  if (partition < 0 || partition > 255)
    errs.push(invalid(`${path}.partition`, partition, pdPartitionErrorMsg));
  return errs;
}

function validateISCSIVolumeSource(iscsi: JsonObject, volPath: string, _volName: string) {
  const path = `${volPath}.iscsi`;
  const errs: ErrorList = [];
  if (str(iscsi.targetPortal).length === 0) errs.push(required(`${path}.targetPortal`));
  const iqn = str(iscsi.iqn);
  if (iqn.length === 0) errs.push(required(`${path}.iqn`));
  else if (!iqn.startsWith("iqn") && !iqn.startsWith("eui") && !iqn.startsWith("naa"))
    errs.push(invalid(`${path}.iqn`, iqn, "must be valid format starting with iqn, eui, or naa"));
  else if (
    (iqn.startsWith("iqn") && !iscsiInitiatorIqnRegex.test(iqn)) ||
    (iqn.startsWith("eui") && !iscsiInitiatorEuiRegex.test(iqn)) ||
    (iqn.startsWith("naa") && !iscsiInitiatorNaaRegex.test(iqn))
  )
    errs.push(invalid(`${path}.iqn`, iqn, "must be valid format"));
  const lun = num(iscsi.lun);
  if (lun < 0 || lun > 255) errs.push(invalid(`${path}.lun`, lun, inclusiveRangeError(0, 255)));
  if ((bool(iscsi.chapAuthDiscovery) || bool(iscsi.chapAuthSession)) && !ptr(iscsi.secretRef))
    errs.push(required(`${path}.secretRef`));
  if (isSet(iscsi.initiatorName)) {
    const initiator = str(iscsi.initiatorName);
    const at = `${path}.initiatorname`;
    if (
      !initiator.startsWith("iqn") &&
      !initiator.startsWith("eui") &&
      !initiator.startsWith("naa")
    )
      errs.push(invalid(at, initiator, "must be valid format starting with iqn, eui, or naa"));
    if (
      (initiator.startsWith("iqn") && !iscsiInitiatorIqnRegex.test(initiator)) ||
      (initiator.startsWith("eui") && !iscsiInitiatorEuiRegex.test(initiator)) ||
      (initiator.startsWith("naa") && !iscsiInitiatorNaaRegex.test(initiator))
    )
      errs.push(invalid(at, initiator, "must be valid format"));
  }
  return errs;
}

function validateFCVolumeSource(fc: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const wwns = strings(fc.targetWWNs);
  const wwids = strings(fc.wwids);
  if (wwns.length < 1 && wwids.length < 1)
    errs.push(
      required(`${path}.targetWWNs`, "must specify either targetWWNs or wwids, but not both"),
    );
  if (wwns.length !== 0 && wwids.length !== 0)
    errs.push(
      invalid(
        `${path}.targetWWNs`,
        goStrings(wwns),
        "targetWWNs and wwids can not be specified simultaneously",
      ),
    );
  if (wwns.length !== 0) {
    if (!isSet(fc.lun))
      errs.push(required(`${path}.lun`, "lun is required if targetWWNs is specified"));
    else if (num(fc.lun) < 0 || num(fc.lun) > 255)
      errs.push(invalid(`${path}.lun`, num(fc.lun), inclusiveRangeError(0, 255)));
  }
  return errs;
}

function validateMode(mode: unknown, path: string): ErrorList {
  if (!isSet(mode)) return [];
  const m = num(mode);
  return m > 0o777 || m < 0 ? [invalid(path, m, fileModeErrorMsg)] : [];
}

/**
 * validateSecretVolumeSource and validateConfigMapVolumeSource: the same rules, the name in
 * `secretName` or `name`.
 */
function validateKeyedVolumeSource(source: JsonObject, path: string, nameField: string) {
  const errs: ErrorList = [];
  if (str(source[nameField]).length === 0) errs.push(required(`${path}.${nameField}`));
  errs.push(...validateMode(source.defaultMode, `${path}.defaultMode`));
  errs.push(...validateUserField(source.defaultUser, `${path}.defaultUser`));
  objects(source.items).forEach((kp, i) => {
    errs.push(...validateKeyToPath(kp, `${path}.items[${i}]`));
  });
  return errs;
}

function validateKeyToPath(kp: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  if (str(kp.key).length === 0) errs.push(required(`${path}.key`));
  if (str(kp.path).length === 0) errs.push(required(`${path}.path`));
  errs.push(...validateLocalNonReservedPath(str(kp.path), `${path}.path`));
  errs.push(...validateMode(kp.mode, `${path}.mode`));
  errs.push(...validateUserField(kp.user, `${path}.user`));
  return errs;
}

/** path.IsAbs: a leading slash. */
function validateNFSVolumeSource(nfs: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  if (str(nfs.server).length === 0) errs.push(required(`${path}.server`));
  if (str(nfs.path).length === 0) errs.push(required(`${path}.path`));
  if (!isAbs(str(nfs.path)))
    errs.push(invalid(`${path}.path`, str(nfs.path), "must be an absolute path"));
  return errs;
}

/** net.SplitHostPort's acceptance, for quobyte's registry. */
function splitsHostPort(hostport: string): boolean {
  if (hostport.startsWith("[")) {
    const end = hostport.indexOf("]");
    if (end < 0) return false;
    const rest = hostport.slice(end + 1);
    if (!rest.startsWith(":")) return false;
    return !rest.slice(1).includes(":") && !hostport.slice(1, end).includes("[");
  }
  const colon = hostport.lastIndexOf(":");
  if (colon < 0) return false;
  const host = hostport.slice(0, colon);
  if (host.includes(":")) return false;
  return !host.includes("[") && !host.includes("]") && !hostport.slice(colon + 1).includes("]");
}

function validateQuobyteVolumeSource(quobyte: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const registry = str(quobyte.registry);
  if (registry.length === 0)
    errs.push(
      required(
        `${path}.registry`,
        "must be a host:port pair or multiple pairs separated by commas",
      ),
    );
  else if (byteLength(str(quobyte.tenant)) >= 65)
    errs.push(
      required(`${path}.tenant`, "must be a UUID and may not exceed a length of 64 characters"),
    );
  else
    for (const pair of registry.split(","))
      if (!splitsHostPort(pair))
        errs.push(
          invalid(
            `${path}.registry`,
            registry,
            "must be a host:port pair or multiple pairs separated by commas",
          ),
        );
  if (str(quobyte.volume).length === 0) errs.push(required(`${path}.volume`));
  return errs;
}

function validateFlockerVolumeSource(flocker: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const name = str(flocker.datasetName);
  const uuid = str(flocker.datasetUUID);
  if (name.length === 0 && uuid.length === 0)
    errs.push(required(path, "one of datasetName and datasetUUID is required"));
  if (name.length !== 0 && uuid.length !== 0)
    errs.push(
      invalid(path, "resource", "datasetName and datasetUUID can not be specified simultaneously"),
    );
  if (name.includes("/")) errs.push(invalid(`${path}.datasetName`, name, "must not contain '/'"));
  return errs;
}

function validateRBDVolumeSource(rbd: JsonObject, path: string): ErrorList {
  const errs = requiredList(rbd, path, "monitors");
  if (str(rbd.image).length === 0) errs.push(required(`${path}.image`));
  return errs;
}

function validateCinderVolumeSource(cinder: JsonObject, path: string): ErrorList {
  const errs = requiredFields(cinder, path, ["volumeID"]);
  const ref = ptr(cinder.secretRef);
  if (ref && str(ref.name).length === 0) errs.push(required(`${path}.secretRef.name`));
  return errs;
}

function validateFlexVolumeSource(flex: JsonObject, path: string): ErrorList {
  const errs = requiredFields(flex, path, ["driver"]);
  for (const [k] of entries(flex.options)) {
    const slash = k.indexOf("/");
    const namespace = slash >= 0 ? k.slice(0, slash) : k;
    const normalized = `.${namespace.toLowerCase()}`;
    if (normalized.endsWith(".kubernetes.io") || normalized.endsWith(".k8s.io"))
      errs.push(
        invalid(`${path}.options[${k}]`, k, "kubernetes.io and k8s.io namespaces are reserved"),
      );
  }
  return errs;
}

const cachingModes = ["None", "ReadOnly", "ReadWrite"];
const diskKinds = ["Dedicated", "Managed", "Shared"];

function validateAzureDisk(azure: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  if (str(azure.diskName) === "") errs.push(required(`${path}.diskName`));
  const uri = str(azure.diskURI);
  if (uri === "") errs.push(required(`${path}.diskURI`));
  if (isSet(azure.cachingMode) && !cachingModes.includes(str(azure.cachingMode)))
    errs.push(notSupported(`${path}.cachingMode`, str(azure.cachingMode), cachingModes));
  if (isSet(azure.kind) && !diskKinds.includes(str(azure.kind)))
    errs.push(notSupported(`${path}.kind`, str(azure.kind), diskKinds));
  if (isSet(azure.kind) && str(azure.kind) === "Managed" && !uri.startsWith("/subscriptions/"))
    errs.push(
      notSupported(`${path}.diskURI`, uri, [
        "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}",
      ]),
    );
  if (isSet(azure.kind) && str(azure.kind) !== "Managed" && !uri.startsWith("https://"))
    errs.push(
      notSupported(`${path}.diskURI`, uri, [
        "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd",
      ]),
    );
  return errs;
}

function validateStorageOSVolumeSource(storageos: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const name = str(storageos.volumeName);
  if (name.length === 0) errs.push(required(`${path}.volumeName`));
  else errs.push(...validateDNS1123Label(name, `${path}.volumeName`));
  const ns = str(storageos.volumeNamespace);
  if (ns.length > 0) errs.push(...validateDNS1123Label(ns, `${path}.volumeNamespace`));
  const ref = ptr(storageos.secretRef);
  if (ref && str(ref.name).length === 0) errs.push(required(`${path}.secretRef.name`));
  return errs;
}

/** ValidateCSIDriverName. */
function validateCSIDriverName(driver: string, path: string, ctx: ValidationContext): ErrorList {
  const errs: ErrorList = [];
  if (driver.length === 0) {
    errs.push(required(path));
    // From 1.35 an empty name is only required, not also checked as a subdomain.
    if (ctx.minor >= 35) return errs;
  }
  if (byteLength(driver) > 63) errs.push(tooLong(path, 63));
  for (const msg of isDNS1123Subdomain(driver.toLowerCase())) errs.push(invalid(path, driver, msg));
  return errs;
}

function validateCSIVolumeSource(csi: JsonObject, path: string, ctx: ValidationContext): ErrorList {
  const errs = validateCSIDriverName(str(csi.driver), `${path}.driver`, ctx);
  const ref = ptr(csi.nodePublishSecretRef);
  if (ref) {
    const name = str(ref.name);
    if (name.length === 0) errs.push(required(`${path}.nodePublishSecretRef.name`));
    else
      for (const msg of nameIsDNSSubdomain(name, false))
        errs.push(invalid(`${path}.name`, name, msg));
  }
  return errs;
}

function validateEphemeralVolumeSource(
  ephemeral: JsonObject,
  volPath: string,
  volName: string,
  podName: string,
  ctx: ValidationContext,
  decoded: JsonObject,
): ErrorList {
  const path = `${volPath}.ephemeral`;
  const errs: ErrorList = [];
  const template = ptr(ephemeral.volumeClaimTemplate);
  if (!template) errs.push(required(`${path}.volumeClaimTemplate`));
  else
    errs.push(
      ...validateClaimTemplate(
        template,
        ptr(ptr(decoded.volumeClaimTemplate)?.metadata) ?? {},
        `${path}.volumeClaimTemplate`,
        ctx,
      ),
    );
  if (podName !== "" && volName !== "") {
    const pvcName = `${podName}-${volName}`;
    // On the volume's name (validateVolumeSource's path), not under `ephemeral`.
    for (const msg of nameIsDNSSubdomain(pvcName, false))
      errs.push(invalid(`${volPath}.name`, volName, `PVC name ${JSON.stringify(pvcName)}: ${msg}`));
  }
  return errs;
}

function validateImageVolumeSource(image: JsonObject, path: string, ctx: ValidationContext) {
  const errs: ErrorList = [];
  // 1.37 requires the reference (AllowEmptyImageVolumeReference only for an old pod).
  if ((ctx.minor >= 37 || ctx.opts.ResourceIsPod) && str(image.reference).length === 0)
    errs.push(required(`${path}.reference`));
  errs.push(...validatePullPolicy(image.pullPolicy, `${path}.pullPolicy`));
  return errs;
}

/** validatePullPolicy. */
export function validatePullPolicy(policy: unknown, path: string): ErrorList {
  const p = str(policy);
  if (p === "Always" || p === "IfNotPresent" || p === "Never") return [];
  if (p === "") return [required(path)];
  return [notSupported(path, p, ["Always", "IfNotPresent", "Never"])];
}

function validateDownwardAPIVolumeFile(file: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const p = str(file.path);
  if (p.length === 0) errs.push(required(`${path}.path`));
  errs.push(...validateLocalNonReservedPath(p, `${path}.path`));
  const fieldRef = ptr(file.fieldRef);
  const resourceFieldRef = ptr(file.resourceFieldRef);
  if (fieldRef) {
    errs.push(
      ...validateObjectFieldSelector(
        fieldRef,
        validVolumeDownwardAPIFieldPathExpressions,
        `${path}.fieldRef`,
      ),
    );
    if (resourceFieldRef)
      errs.push(
        invalid(
          path,
          "resource",
          "fieldRef and resourceFieldRef can not be specified simultaneously",
        ),
      );
  } else if (resourceFieldRef)
    errs.push(
      ...validateContainerResourceFieldSelector(
        resourceFieldRef,
        validContainerResourceFieldPathExpressions,
        downwardAPIHugePagesPrefixes,
        `${path}.resourceFieldRef`,
        true,
      ),
    );
  else errs.push(required(path, "one of fieldRef and resourceFieldRef is required"));
  errs.push(...validateMode(file.mode, `${path}.mode`));
  errs.push(...validateUserField(file.user, `${path}.user`));
  return errs;
}

function validateDownwardAPIVolumeSource(source: JsonObject, path: string): ErrorList {
  const errs = validateMode(source.defaultMode, `${path}.defaultMode`);
  errs.push(...validateUserField(source.defaultUser, `${path}.defaultUser`));
  for (const file of objects(source.items)) errs.push(...validateDownwardAPIVolumeFile(file, path));
  return errs;
}

function validateProjectedVolumeSource(
  projection: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs = validateMode(projection.defaultMode, `${path}.defaultMode`);
  errs.push(...validateUserField(projection.defaultUser, `${path}.defaultUser`));
  const allPaths = new Set<string>();
  const claimed = (p: string, value: string): ErrorList => {
    if (allPaths.has(p)) return [invalid(path, value, "conflicting duplicate paths")];
    allPaths.add(p);
    return [];
  };
  const claim = (p: string, value: string) => errs.push(...claimed(p, value));
  objects(projection.sources).forEach((source, i) => {
    let numSources = 0;
    const srcPath = `${path}.sources[${i}]`;
    for (const kind of ["secret", "configMap"]) {
      const s = ptr(source[kind]);
      if (!s) continue;
      numSources++;
      const projPath = `${srcPath}.${kind}`;
      if (str(s.name).length === 0) errs.push(required(`${projPath}.name`));
      objects(s.items).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, `${projPath}.items[${j}]`));
        if (str(kp.path).length > 0) claim(str(kp.path), str(s.name));
      });
    }
    const downwardAPI = ptr(source.downwardAPI);
    if (downwardAPI) {
      numSources++;
      for (const file of objects(downwardAPI.items)) {
        errs.push(...validateDownwardAPIVolumeFile(file, `${srcPath}.downwardAPI`));
        if (str(file.path).length > 0) claim(str(file.path), str(file.path));
      }
    }
    const token = ptr(source.serviceAccountToken);
    if (token) {
      numSources++;
      const projPath = `${srcPath}.serviceAccountToken`;
      const seconds = num(token.expirationSeconds);
      if (seconds < 600)
        errs.push(
          invalid(
            `${projPath}.expirationSeconds`,
            seconds,
            "may not specify a duration less than 10 minutes",
          ),
        );
      if (seconds > 2 ** 32)
        errs.push(
          invalid(
            `${projPath}.expirationSeconds`,
            seconds,
            "may not specify a duration larger than 2^32 seconds",
          ),
        );
      const tokenPath = str(token.path);
      if (tokenPath === "") errs.push(required(`${path}.path`));
      else if (!ctx.opts.AllowNonLocalProjectedTokenPath)
        errs.push(...validateLocalNonReservedPath(tokenPath, `${path}.path`));
      errs.push(...validateUserField(token.user, `${projPath}.user`));
    }
    const bundle = ptr(source.clusterTrustBundle);
    if (bundle) {
      numSources++;
      errs.push(
        ...validateClusterTrustBundleProjection(bundle, `${srcPath}.clusterTrustBundle`, ctx.minor),
      );
      const bundlePath = str(bundle.path);
      claim(bundlePath, bundlePath);
    }
    const cert = ptr(source.podCertificate);
    if (cert) {
      numSources++;
      errs.push(
        ...validatePodCertificateProjection(cert, `${srcPath}.podCertificate`, (p) =>
          claimed(p, p),
        ),
      );
    }
    if (numSources > 1)
      errs.push(forbidden(srcPath, "may not specify more than 1 volume type per source"));
  });
  return errs;
}

/**
 * The clusterTrustBundle projection's shape. Its name rule (ValidateClusterTrustBundleName)
 * is not ported: a static pod with any clusterTrustBundle is refused after validation anyway
 * (validation_static.ts), only the message can differ.
 */
function validateClusterTrustBundleProjection(
  bundle: JsonObject,
  projPath: string,
  minor: number,
): ErrorList {
  const errs: ErrorList = [];
  const usingName = isSet(bundle.name);
  const usingSignerName = isSet(bundle.signerName);
  if (usingName && usingSignerName)
    errs.push(
      invalid(
        projPath,
        goClusterTrustBundleProjection(bundle, minor),
        "only one of name and signerName may be used",
      ),
    );
  else if (usingName) {
    if (str(bundle.name) === "")
      errs.push(required(`${projPath}.name`, "must be a valid object name"));
    if (isSet(bundle.labelSelector))
      errs.push(
        invalid(
          `${projPath}.labelSelector`,
          // metav1.LabelSelector has json tags: from 1.34 it prints as the wire form has it.
          goInternalJSON(ptr(bundle.labelSelector) ?? {}, "&v1.LabelSelector{...}"),
          "labelSelector must be unset if name is specified",
        ),
      );
  } else if (usingSignerName) {
    if (str(bundle.signerName) === "")
      errs.push(required(`${projPath}.signerName`, "must be a valid signer name"));
    errs.push(...validateSignerName(`${projPath}.signerName`, str(bundle.signerName)));
    errs.push(
      ...validateLabelSelector(
        bundle.labelSelector,
        { AllowInvalidLabelValueInSelector: false },
        `${projPath}.labelSelector`,
      ),
    );
  } else errs.push(required(projPath, "either name or signerName must be specified"));
  if (str(bundle.path) === "") errs.push(required(`${projPath}.path`));
  errs.push(...validateUserField(bundle.user, `${projPath}.user`));
  errs.push(...validateLocalNonReservedPath(str(bundle.path), `${projPath}.path`));
  return errs;
}

/**
 * The projection as the kubelet prints it as a bad value: JSON of the internal type from 1.34
 * (its label selector is metav1's, with json tags, as the wire form already has it; 1.37 adds
 * `User`); up to 1.33 %#v, where the set name and signer name print their addresses.
 */
function goClusterTrustBundleProjection(bundle: JsonObject, minor: number): { go: string } {
  return goInternalJSON(
    {
      Name: orNull(bundle.name),
      SignerName: orNull(bundle.signerName),
      LabelSelector: orNull(bundle.labelSelector),
      Optional: orNull(bundle.optional),
      Path: str(bundle.path),
      ...(minor >= 37 ? { User: orNull(bundle.user) } : {}),
    },
    "core.ClusterTrustBundleProjection{...}",
  );
}
