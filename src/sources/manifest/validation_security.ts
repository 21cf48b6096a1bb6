// Security contexts (validation.go: ValidateSecurityContext, validatePodSpecSecurityContext,
// seccomp and AppArmor fields and annotations, sysctls, Windows options, hostUsers). The
// kubelet runs with capabilities.AllowPrivileged = true (cmd/kubelet/app/server.go), so
// "disallowed by cluster policy" never applies to a static pod.
import type { JsonObject } from "../json_object.js";
import {
  byteLength,
  duplicate,
  type ErrorList,
  type FieldError,
  forbidden,
  goInternalJSON,
  goStruct,
  goTrimSpace,
  invalid,
  isDNS1123Subdomain,
  isValidGroupID,
  isValidUserID,
  notSupported,
  required,
  tooLong,
} from "./field.js";
import { bool, isSet, num, objects, orNull, ptr, str, strings } from "./validation_json.js";
import type { Annotations } from "./validation_names.js";
import { decodedAt, type ValidationContext } from "./validation_options.js";
import { validateLocalDescendingPath } from "./validation_paths.js";

/** A pointer to a struct, as `build` maps it: null when nil. */
const nested = (v: unknown, build: (o: JsonObject) => Record<string, unknown>) => {
  const o = ptr(v);
  return o ? build(o) : null;
};

/** A []string: null when nil. */
const stringList = (v: unknown): string[] | null => (isSet(v) ? strings(v) : null);

const profile = (p: JsonObject) => ({
  Type: str(p.type),
  LocalhostProfile: orNull(p.localhostProfile),
});

/**
 * A container's security context as the kubelet prints it as a bad value: the internal
 * core.SecurityContext (the same fields, in this order, 1.34 to 1.37) as JSON from 1.34; up to
 * 1.33 %#v, where the set pointers that made it invalid print their addresses.
 */
function goSecurityContext(sc: JsonObject): { go: string } {
  return goInternalJSON(
    {
      Capabilities: nested(sc.capabilities, (c) => ({
        Add: stringList(c.add),
        Drop: stringList(c.drop),
      })),
      Privileged: orNull(sc.privileged),
      SELinuxOptions: nested(sc.seLinuxOptions, (o) => ({
        User: str(o.user),
        Role: str(o.role),
        Type: str(o.type),
        Level: str(o.level),
      })),
      WindowsOptions: nested(sc.windowsOptions, (o) => ({
        GMSACredentialSpecName: orNull(o.gmsaCredentialSpecName),
        GMSACredentialSpec: orNull(o.gmsaCredentialSpec),
        RunAsUserName: orNull(o.runAsUserName),
        HostProcess: orNull(o.hostProcess),
      })),
      RunAsUser: orNull(sc.runAsUser),
      RunAsGroup: orNull(sc.runAsGroup),
      RunAsNonRoot: orNull(sc.runAsNonRoot),
      ReadOnlyRootFilesystem: orNull(sc.readOnlyRootFilesystem),
      AllowPrivilegeEscalation: orNull(sc.allowPrivilegeEscalation),
      ProcMount: orNull(sc.procMount),
      SeccompProfile: nested(sc.seccompProfile, profile),
      AppArmorProfile: nested(sc.appArmorProfile, profile),
    },
    "core.SecurityContext{...}",
  );
}

const seccompTypes = ["Localhost", "RuntimeDefault", "Unconfined"];

export function validateSeccompProfileField(sp: JsonObject | null, path: string): ErrorList {
  if (!sp) return [];
  const errs: ErrorList = [];
  const type = str(sp.type);
  if (type === "")
    errs.push(required(`${path}.type`, "type is required when seccompProfile is set"));
  else if (!seccompTypes.includes(type))
    errs.push(notSupported(`${path}.type`, type, seccompTypes));
  if (type === "Localhost") {
    if (!isSet(sp.localhostProfile))
      errs.push(required(`${path}.localhostProfile`, "must be set when seccomp type is Localhost"));
    else
      errs.push(
        ...validateLocalDescendingPath(str(sp.localhostProfile), `${path}.localhostProfile`),
      );
  } else if (isSet(sp.localhostProfile))
    errs.push(
      invalid(
        `${path}.localhostProfile`,
        goStruct(
          "core.SeccompProfile",
          false,
          [
            ["Type", "string", str(sp.type)],
            ["LocalhostProfile", "*string", str(sp.localhostProfile)],
          ],
          "core.SeccompProfile{...}",
        ),
        "can only be set when seccomp type is Localhost",
      ),
    );
  return errs;
}

const appArmorTypes = ["Localhost", "RuntimeDefault", "Unconfined"];

export function validateAppArmorProfileField(profile: JsonObject | null, path: string): ErrorList {
  if (!profile) return [];
  const errs: ErrorList = [];
  const type = str(profile.type);
  switch (type) {
    case "Localhost": {
      if (!isSet(profile.localhostProfile)) {
        errs.push(
          required(`${path}.localhostProfile`, "must be set when AppArmor type is Localhost"),
        );
        break;
      }
      const value = str(profile.localhostProfile);
      const trimmed = goTrimSpace(value);
      if (trimmed !== value)
        errs.push(invalid(`${path}.localhostProfile`, value, "must not be padded with whitespace"));
      else if (trimmed === "")
        errs.push(
          required(`${path}.localhostProfile`, "must be set when AppArmor type is Localhost"),
        );
      if (byteLength(value) > 4095) errs.push(tooLong(`${path}.localhostProfile`, 4095));
      break;
    }
    case "RuntimeDefault":
    case "Unconfined":
      if (isSet(profile.localhostProfile))
        errs.push(
          invalid(
            `${path}.localhostProfile`,
            str(profile.localhostProfile),
            "can only be set when AppArmor type is Localhost",
          ),
        );
      break;
    case "":
      errs.push(required(`${path}.type`, "type is required when appArmorProfile is set"));
      break;
    default:
      errs.push(notSupported(`${path}.type`, type, appArmorTypes));
  }
  return errs;
}

/** ShareProcessNamespace and HostPID together (1.37's validateShareProcessNamespace). */
export function validateShareProcessNamespace(spec: JsonObject, path: string): ErrorList {
  if (spec.shareProcessNamespace === true && bool(spec.hostPID))
    return [invalid(path, true, "ShareProcessNamespace and HostPID cannot both be enabled")];
  return [];
}

const procMountTypes = ["Default", "Unmasked"];

/** ValidateSecurityContext (a container's). */
export function validateSecurityContext(
  sc: JsonObject | null,
  path: string,
  hostUsers: boolean,
  ctx: ValidationContext,
): ErrorList {
  if (!sc) return [];
  // Printed as a bad value from the decoded pod, which keeps `drop: []` apart from no `drop`.
  const printed = () => goSecurityContext(ptr(decodedAt(ctx, path)) ?? sc);
  const errs: ErrorList = [];
  if (isSet(sc.runAsUser))
    for (const msg of isValidUserID(num(sc.runAsUser)))
      errs.push(invalid(`${path}.runAsUser`, num(sc.runAsUser), msg));
  if (isSet(sc.runAsGroup))
    for (const msg of isValidGroupID(num(sc.runAsGroup)))
      errs.push(invalid(`${path}.runAsGroup`, num(sc.runAsGroup), msg));
  if (isSet(sc.procMount)) {
    const procMount = str(sc.procMount);
    if (!procMountTypes.includes(procMount))
      errs.push(notSupported(`${path}.procMount`, procMount, procMountTypes));
    if (hostUsers && procMount === "Unmasked")
      errs.push(
        invalid(`${path}.procMount`, procMount, "`hostUsers` must be false to use `Unmasked`"),
      );
  }
  errs.push(...validateSeccompProfileField(ptr(sc.seccompProfile), `${path}.seccompProfile`));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true)
      errs.push(
        invalid(
          path,
          printed(),
          "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
        ),
      );
    const caps = ptr(sc.capabilities);
    if (caps)
      for (const cap of strings(caps.add))
        if (cap === "CAP_SYS_ADMIN")
          errs.push(
            invalid(
              path,
              printed(),
              "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
            ),
          );
  }
  errs.push(
    ...validateWindowsSecurityContextOptions(ptr(sc.windowsOptions), `${path}.windowsOptions`),
  );
  errs.push(...validateAppArmorProfileField(ptr(sc.appArmorProfile), `${path}.appArmorProfile`));
  return errs;
}

const maxGMSACredentialSpecLength = 64 * 1024;
const validNetBiosRegex = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/u;
const dnsLabelFormat = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?";
const validWindowsUserDomainDNSRegex = new RegExp(`^${dnsLabelFormat}(?:\\.${dnsLabelFormat})*$`);
const invalidUserNameCharsRegex = /["/\\:;|=,+*?<>@[\]]/;
const invalidUserNameDotsSpacesRegex = /^[. ]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: [[:cntrl:]] is the point
const ctrlRegex = /[\x00-\x1f\x7f]/;

function validateWindowsSecurityContextOptions(
  options: JsonObject | null,
  path: string,
): ErrorList {
  if (!options) return [];
  const errs: ErrorList = [];
  if (isSet(options.gmsaCredentialSpecName)) {
    const name = str(options.gmsaCredentialSpecName);
    for (const msg of isDNS1123Subdomain(name))
      errs.push(invalid(`${path}.gmsaCredentialSpecName`, name, msg));
  }
  if (isSet(options.gmsaCredentialSpec)) {
    const spec = str(options.gmsaCredentialSpec);
    const l = byteLength(spec);
    if (l === 0)
      errs.push(
        invalid(`${path}.gmsaCredentialSpec`, spec, "gmsaCredentialSpec cannot be an empty string"),
      );
    else if (l > maxGMSACredentialSpecLength)
      errs.push(
        invalid(`${path}.gmsaCredentialSpec`, spec, "gmsaCredentialSpec size must be under 64 KiB"),
      );
  }
  if (isSet(options.runAsUserName)) {
    const at = `${path}.runAsUserName`;
    const name = str(options.runAsUserName);
    const parts = name.split("\\");
    if (name.length === 0) errs.push(invalid(at, name, "runAsUserName cannot be an empty string"));
    else if (ctrlRegex.test(name))
      errs.push(invalid(at, name, "runAsUserName cannot contain control characters"));
    else if (parts.length > 2)
      errs.push(invalid(at, name, "runAsUserName cannot contain more than one backslash"));
    else {
      const hasDomain = parts.length === 2;
      const domain = hasDomain ? (parts[0] as string) : "";
      const user = hasDomain ? (parts[1] as string) : (parts[0] as string);
      if (byteLength(domain) >= 256)
        errs.push(invalid(at, name, "runAsUserName's Domain length must be under 256 characters"));
      if (
        hasDomain &&
        !(validNetBiosRegex.test(domain) || validWindowsUserDomainDNSRegex.test(domain))
      )
        errs.push(
          invalid(at, name, "runAsUserName's Domain doesn't match the NetBios nor the DNS format"),
        );
      const l = byteLength(user);
      if (l === 0) errs.push(invalid(at, name, "runAsUserName's User cannot be empty"));
      else if (l > 104)
        errs.push(
          invalid(at, name, "runAsUserName's User length must not be longer than 104 characters"),
        );
      if (invalidUserNameDotsSpacesRegex.test(user))
        errs.push(invalid(at, name, "runAsUserName's User cannot contain only periods or spaces"));
      if (invalidUserNameCharsRegex.test(user))
        errs.push(
          invalid(
            at,
            name,
            `runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`,
          ),
        );
    }
  }
  return errs;
}

const sysctlSegmentFmt = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const sysctlContainSlashFmt = `(${sysctlSegmentFmt}[\\./])*${sysctlSegmentFmt}`;
const sysctlRegexp = new RegExp(`^${sysctlContainSlashFmt}$`);

const isValidSysctlName = (name: string): boolean =>
  byteLength(name) <= 253 && sysctlRegexp.test(name);

const ipcSysctls = new Set([
  "kernel.sem",
  "kernel.shmall",
  "kernel.shmmax",
  "kernel.shmmni",
  "kernel.shm_rmid_forced",
  "kernel.shm",
  "kernel.msgmax",
  "kernel.msgmnb",
  "kernel.msgmni",
  "kernel.msg",
]);

/** utilsysctl.NormalizeName: slashes as separators become dots. */
function normalizeSysctlName(val: string): string {
  const first = val.search(/[./]/);
  if (first === -1 || val[first] === ".") return val;
  return val.replace(/[./]/g, (c) => (c === "." ? "/" : "."));
}

/** utilsysctl.GetNamespace. */
function sysctlNamespace(sysctl: string): "Net" | "IPC" | "" {
  let name = normalizeSysctlName(sysctl);
  const star = name.indexOf("*");
  if (star !== -1) name = name.slice(0, star);
  if (ipcSysctls.has(name)) return "IPC";
  if (name.startsWith("net.")) return "Net";
  if (name.startsWith("fs.mqueue.")) return "IPC";
  return "";
}

/** ValidateHostSysctl. */
function validateHostSysctl(sysctl: string, hostNetwork: boolean, hostIPC: boolean, path: string) {
  const ns = sysctlNamespace(sysctl);
  if (hostNetwork && ns === "Net")
    return invalid(path, sysctl, "may not be specified when 'hostNetwork' is true");
  if (hostIPC && ns === "IPC")
    return invalid(path, sysctl, "may not be specified when 'hostIPC' is true");
  return null;
}

function validateSysctls(
  sysctls: unknown,
  spec: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  objects(sysctls).forEach((s, i) => {
    const at = `${path}[${i}].name`;
    const name = str(s.name);
    if (name.length === 0) errs.push(required(at));
    else if (!isValidSysctlName(name))
      errs.push(
        invalid(
          at,
          name,
          `must have at most 253 characters and match regex ^${sysctlContainSlashFmt}$`,
        ),
      );
    else if (names.has(name)) errs.push(duplicate(at, name));
    if (!ctx.opts.AllowNamespacedSysctlsForHostNetAndHostIPC) {
      const err = validateHostSysctl(name, bool(spec.hostNetwork), bool(spec.hostIPC), at);
      if (err) errs.push(err);
    }
    names.add(name);
  });
  return errs;
}

const fsGroupChangePolicies = ["Always", "OnRootMismatch"];
const supplementalGroupsPolicies = ["Merge", "Strict"];

/** validatePodSpecSecurityContext; the host namespaces are the v1 spec's fields. */
export function validatePodSpecSecurityContext(
  sc: JsonObject | null,
  spec: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  if (!sc) return [];
  const errs: ErrorList = [];
  for (const [field, check] of [
    ["fsGroup", isValidGroupID],
    ["runAsUser", isValidUserID],
    ["runAsGroup", isValidGroupID],
  ] as const)
    if (isSet(sc[field]))
      for (const msg of check(num(sc[field])))
        errs.push(invalid(`${path}.${field}`, num(sc[field]), msg));
  (Array.isArray(sc.supplementalGroups) ? sc.supplementalGroups : []).forEach((gid, g) => {
    for (const msg of isValidGroupID(num(gid)))
      errs.push(invalid(`${path}.supplementalGroups[${g}]`, num(gid), msg));
  });
  // 1.37 moved the field out of the internal PodSecurityContext: validateShareProcessNamespace.
  if (ctx.minor < 37)
    errs.push(...validateShareProcessNamespace(spec, `${path}.shareProcessNamespace`));
  if (objects(sc.sysctls).length !== 0)
    errs.push(...validateSysctls(sc.sysctls, spec, `${path}.sysctls`, ctx));
  if (isSet(sc.fsGroupChangePolicy) && !fsGroupChangePolicies.includes(str(sc.fsGroupChangePolicy)))
    errs.push(
      notSupported(
        `${path}.fsGroupChangePolicy`,
        str(sc.fsGroupChangePolicy),
        fsGroupChangePolicies,
      ),
    );
  errs.push(...validateSeccompProfileField(ptr(sc.seccompProfile), `${path}.seccompProfile`));
  errs.push(
    ...validateWindowsSecurityContextOptions(ptr(sc.windowsOptions), `${path}.windowsOptions`),
  );
  errs.push(...validateAppArmorProfileField(ptr(sc.appArmorProfile), `${path}.appArmorProfile`));
  if (
    isSet(sc.supplementalGroupsPolicy) &&
    !supplementalGroupsPolicies.includes(str(sc.supplementalGroupsPolicy))
  )
    errs.push(
      notSupported(
        `${path}.supplementalGroupsPolicy`,
        str(sc.supplementalGroupsPolicy),
        supplementalGroupsPolicies,
      ),
    );
  if (isSet(sc.seLinuxChangePolicy)) {
    const policy = str(sc.seLinuxChangePolicy);
    if (ctx.opts.AllowOnlyRecursiveSELinuxChangePolicy) {
      if (policy !== "Recursive")
        errs.push(notSupported(`${path}.seLinuxChangePolicy`, policy, ["Recursive"]));
    } else if (policy !== "Recursive" && policy !== "MountOption")
      errs.push(notSupported(`${path}.seLinuxChangePolicy`, policy, ["MountOption", "Recursive"]));
  }
  return errs;
}

/** validateHostUsers: a user namespace may not share the host's namespaces. */
export function validateHostUsers(
  spec: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  if (!isSet(spec.hostUsers) || spec.hostUsers === true) return [];
  const errs: ErrorList = [];
  // 1.34 reworded it, and refuses volume devices in a user namespace.
  const detail =
    ctx.minor >= 34 ? "when `hostUsers` is false" : "when `pod.Spec.HostUsers` is false";
  if (bool(spec.hostNetwork) && !ctx.opts.AllowUserNamespacesHostNetworkSupport)
    errs.push(forbidden(`${path}.hostNetwork`, detail));
  if (bool(spec.hostPID)) errs.push(forbidden(`${path}.HostPID`, detail));
  if (bool(spec.hostIPC)) errs.push(forbidden(`${path}.HostIPC`, detail));
  if (ctx.minor >= 34)
    for (const [c, at] of visitContainers(spec, path))
      if (objects(c.volumeDevices).length > 0) errs.push(forbidden(`${at}.volumeDevices`, detail));
  return errs;
}

/** The containers in VisitContainersWithPath's order: init, regular, ephemeral. */
export function visitContainers(spec: JsonObject, path: string): [JsonObject, string][] {
  const out: [JsonObject, string][] = [];
  for (const field of ["initContainers", "containers", "ephemeralContainers"])
    for (const [i, c] of objects(spec[field]).entries()) out.push([c, `${path}.${field}[${i}]`]);
  return out;
}

/** validateWindowsHostProcessPod (AllowPrivileged is true in the kubelet). */
export function validateWindowsHostProcessPod(spec: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  let containerCount = 0;
  let hostProcessCount = 0;
  const podOptions = ptr(ptr(spec.securityContext)?.windowsOptions);
  const podHostProcess =
    podOptions && isSet(podOptions.hostProcess) ? bool(podOptions.hostProcess) : null;
  const hostNetwork = bool(spec.hostNetwork);
  for (const [c, at] of visitContainers(spec, path)) {
    containerCount++;
    const options = ptr(ptr(c.securityContext)?.windowsOptions);
    const hostProcess = options && isSet(options.hostProcess) ? bool(options.hostProcess) : null;
    if (podHostProcess !== null && hostProcess !== null && podHostProcess !== hostProcess)
      errs.push(
        invalid(
          `${at}.securityContext.windowsOptions.hostProcess`,
          hostProcess,
          `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`,
        ),
      );
    if (hostProcess === true || (hostProcess === null && podHostProcess === true))
      hostProcessCount++;
  }
  if (hostProcessCount > 0) {
    if (hostProcessCount !== containerCount)
      errs.push(
        invalid(
          path,
          "",
          "If pod contains any hostProcess containers then all containers must be HostProcess containers",
        ),
      );
    if (!hostNetwork)
      errs.push(
        invalid(
          `${path}.hostNetwork`,
          false,
          "hostNetwork must be true if pod contains any hostProcess containers",
        ),
      );
  }
  return errs;
}

const seccompPodAnnotationKey = "seccomp.security.alpha.kubernetes.io/pod";
const seccompContainerAnnotationKeyPrefix = "container.seccomp.security.alpha.kubernetes.io/";

function validateSeccompProfileAnnotation(p: string, path: string): ErrorList {
  if (p === "runtime/default" || p === "docker/default" || p === "unconfined") return [];
  if (p.startsWith("localhost/"))
    return validateLocalDescendingPath(p.slice("localhost/".length), path);
  return [invalid(path, p, "must be a valid seccomp profile")];
}

/** ValidateSeccompPodAnnotations. */
export function validateSeccompPodAnnotations(annotations: Annotations, path: string): ErrorList {
  const errs: ErrorList = [];
  const pod = annotations.get(seccompPodAnnotationKey);
  if (pod !== undefined)
    errs.push(...validateSeccompProfileAnnotation(pod, `${path}.${seccompPodAnnotationKey}`));
  for (const [k, v] of annotations)
    if (k.startsWith(seccompContainerAnnotationKeyPrefix))
      errs.push(...validateSeccompProfileAnnotation(v, `${path}.${k}`));
  return errs;
}

const appArmorAnnotationKeyPrefix = "container.apparmor.security.beta.kubernetes.io/";

/** ValidateAppArmorPodAnnotations. */
export function validateAppArmorPodAnnotations(
  annotations: Annotations,
  spec: JsonObject,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  const names = new Set(visitContainers(spec, "spec").map(([c]) => str(c.name)));
  for (const [k, p] of annotations) {
    if (!k.startsWith(appArmorAnnotationKeyPrefix)) continue;
    const containerName = k.slice(appArmorAnnotationKeyPrefix.length);
    if (!names.has(containerName))
      errs.push(invalid(`${path}[${k}]`, containerName, "container not found"));
    if (p !== "" && p !== "runtime/default" && p !== "unconfined" && !p.startsWith("localhost/"))
      errs.push(invalid(`${path}[${k}]`, p, `invalid AppArmor profile name: ${JSON.stringify(p)}`));
  }
  return errs;
}

function seccompMatch(annotation: string, sp: JsonObject, path: string): FieldError | null {
  const type = str(sp.type);
  const typeErr = forbidden(`${path}.type`, "seccomp type in annotation and field must match");
  if (type === "Unconfined") return annotation !== "unconfined" ? typeErr : null;
  if (type === "RuntimeDefault")
    return annotation !== "runtime/default" && annotation !== "docker/default" ? typeErr : null;
  if (type === "Localhost") {
    if (!annotation.startsWith("localhost/")) return typeErr;
    if (
      !isSet(sp.localhostProfile) ||
      annotation.slice("localhost/".length) !== str(sp.localhostProfile)
    )
      return forbidden(
        `${path}.localhostProfile`,
        "seccomp profile in annotation and field must match",
      );
  }
  return null;
}

/** validateSeccompAnnotationsAndFields. */
export function validateSeccompAnnotationsAndFields(
  all: Annotations,
  spec: JsonObject,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  const podProfile = ptr(ptr(spec.securityContext)?.seccompProfile);
  if (podProfile) {
    const annotation = all.get(seccompPodAnnotationKey);
    if (annotation !== undefined) {
      const err = seccompMatch(annotation, podProfile, `${path}.securityContext.seccompProfile`);
      if (err) errs.push(err);
    }
  }
  for (const [c, at] of visitContainers(spec, path)) {
    const profile = ptr(ptr(c.securityContext)?.seccompProfile);
    if (!profile) continue;
    const annotation = all.get(`${seccompContainerAnnotationKeyPrefix}${str(c.name)}`);
    if (annotation === undefined) continue;
    const err = seccompMatch(annotation, profile, `${at}.securityContext.seccompProfile`);
    if (err) errs.push(err);
  }
  return errs;
}

/** validateAppArmorAnnotationsAndFieldsMatchOnCreate. */
export function validateAppArmorAnnotationsAndFieldsMatchOnCreate(
  all: Annotations,
  spec: JsonObject,
  path: string,
): ErrorList {
  if (str(ptr(spec.os)?.name) === "windows") return [];
  const errs: ErrorList = [];
  const podProfile = ptr(ptr(spec.securityContext)?.appArmorProfile);
  for (const [c, at] of visitContainers(spec, path)) {
    const profile = ptr(ptr(c.securityContext)?.appArmorProfile) ?? podProfile;
    if (!profile) continue;
    const annotation = all.get(`${appArmorAnnotationKeyPrefix}${str(c.name)}`);
    if (annotation === undefined) continue;
    const apparmorPath = `${at}.securityContext.appArmorProfile`;
    const typeErr = forbidden(
      `${apparmorPath}.type`,
      "apparmor type in annotation and field must match",
    );
    switch (str(profile.type)) {
      case "Unconfined":
        if (annotation !== "unconfined") errs.push(typeErr);
        break;
      case "RuntimeDefault":
        if (annotation !== "runtime/default") errs.push(typeErr);
        break;
      case "Localhost":
        if (!annotation.startsWith("localhost/")) errs.push(typeErr);
        else if (
          !isSet(profile.localhostProfile) ||
          annotation.slice("localhost/".length) !== str(profile.localhostProfile)
        )
          errs.push(
            forbidden(
              `${apparmorPath}.localhostProfile`,
              "apparmor profile in annotation and field must match",
            ),
          );
    }
  }
  return errs;
}
