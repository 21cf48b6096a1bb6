// Where and how a pod runs: affinity, tolerations, topology spread, DNS config, host
// aliases, readiness and scheduling gates, image pull secrets, os (validation.go).
import { isIPv6 } from "node:net";
import type { JsonObject } from "../json_object.js";
import {
  duplicate,
  type ErrorList,
  forbidden,
  goStrings,
  invalid,
  isDNS1123Subdomain,
  isDNS1123SubdomainWithUnderscore,
  isValidLabelValue,
  notSupported,
  required,
} from "./field.js";
import { entries, isSet, num, objects, ptr, str, strings } from "./validation_json.js";
import {
  nameIsDNSLabel,
  validateDNS1123Subdomain,
  validateLabelName,
  validateLabelSelector,
  validateQualifiedName,
} from "./validation_names.js";
import { decodedAt, type ValidationContext } from "./validation_options.js";
import { visitContainers } from "./validation_security.js";

/** netutils.ParseIPSloppy accepts it: IPv4 with leading zeros allowed, or IPv6. */
export function isSloppyIP(value: string): boolean {
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(value);
  if (v4) return v4.slice(1).every((part) => Number(part) <= 255);
  // ParseIPSloppy takes no IPv6 zone ("fe80::1%eth0"); Node's isIPv6 does.
  if (!value.includes(":") || value.includes("%")) return false;
  // An embedded IPv4 tail may have leading zeros too.
  const tail = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(value);
  if (tail) {
    const parts = tail.slice(2).map(Number);
    if (parts.some((p) => p > 255)) return false;
    return isIPv6(`${tail[1]}${parts.join(".")}`);
  }
  return isIPv6(value);
}

const ipError = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/**
 * IsValidIPForLegacyField (from 1.33; before, IsValidIP): sloppy parsing, and with the
 * StrictIPCIDRValidation gate (on by default from 1.36) no leading zeros and no IPv4-mapped
 * IPv6 address.
 */
function validateLegacyIP(value: string, path: string, ctx: ValidationContext): ErrorList {
  if (!isSloppyIP(value)) return [invalid(path, value, ipError)];
  if (ctx.minor < 36) return [];
  const errs: ErrorList = [];
  // netip.ParseAddr refuses a leading zero in a dotted-decimal octet (alone or as an IPv6 tail).
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(value)?.[1] ?? "";
  // A failed ParseAddr leaves the zero Addr, which is not 4-in-6: one error, not two.
  if (dotted.split(".").some((octet) => /^0\d/.test(octet)))
    errs.push(invalid(path, value, "must not have leading 0s"));
  else if (value.includes(":") && /^(0{0,4}:){0,5}:?ffff:/i.test(value.replace(/^::/, "0:")))
    errs.push(invalid(path, value, "must not be an IPv4-mapped IPv6 address"));
  return errs;
}

/** validateImagePullSecrets: only `name` may be set. */
export function validateImagePullSecrets(secrets: unknown, path: string): ErrorList {
  const errs: ErrorList = [];
  objects(secrets).forEach((s, i) => {
    if (Object.entries(s).some(([k, v]) => k !== "name" && v !== undefined && v !== null))
      errs.push(
        invalid(
          `${path}[${i}]`,
          { go: `core.LocalObjectReference{Name:${JSON.stringify(str(s.name))}}` },
          "only name may be set",
        ),
      );
  });
  return errs;
}

function validateNodeSelectorRequirement(
  rq: JsonObject,
  allowInvalidLabelValue: boolean,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  const operator = str(rq.operator);
  const values = strings(rq.values);
  switch (operator) {
    case "In":
    case "NotIn":
      if (values.length === 0)
        errs.push(
          required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"),
        );
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0)
        errs.push(
          forbidden(
            `${path}.values`,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      break;
    case "Gt":
    case "Lt":
      if (values.length !== 1)
        errs.push(
          required(
            `${path}.values`,
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
          ),
        );
      break;
    default:
      errs.push(invalid(`${path}.operator`, operator, "not a valid selector operator"));
  }
  errs.push(...validateLabelName(str(rq.key), `${path}.key`));
  if (!allowInvalidLabelValue)
    values.forEach((value, i) => {
      for (const msg of isValidLabelValue(value))
        errs.push(invalid(`${path}.values[${i}]`, value, msg));
    });
  return errs;
}

function validateNodeFieldSelectorRequirement(req: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const operator = str(req.operator);
  const values = strings(req.values);
  if (operator === "In" || operator === "NotIn") {
    if (values.length !== 1)
      errs.push(
        required(
          `${path}.values`,
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
  } else errs.push(invalid(`${path}.operator`, operator, "not a valid selector operator"));
  const key = str(req.key);
  if (key !== "metadata.name")
    errs.push(invalid(`${path}.key`, key, "not a valid field selector key"));
  else
    values.forEach((v, i) => {
      for (const msg of isDNS1123Subdomain(v)) errs.push(invalid(`${path}.values[${i}]`, v, msg));
    });
  return errs;
}

function validateNodeSelectorTerm(
  term: JsonObject,
  allowInvalid: boolean,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  objects(term.matchExpressions).forEach((req, j) => {
    errs.push(
      ...validateNodeSelectorRequirement(req, allowInvalid, `${path}.matchExpressions[${j}]`),
    );
  });
  objects(term.matchFields).forEach((req, j) => {
    errs.push(...validateNodeFieldSelectorRequirement(req, `${path}.matchFields[${j}]`));
  });
  return errs;
}

/**
 * validateNodeAffinity. A required term's label values are checked from 1.33: its
 * AllowInvalidLabelValueInRequiredNodeAffinity is false for the kubelet (1.32 hard-coded true).
 */
function validateNodeAffinity(na: JsonObject, path: string, minor: number): ErrorList {
  const errs: ErrorList = [];
  const requiredSelector = ptr(na.requiredDuringSchedulingIgnoredDuringExecution);
  if (requiredSelector) {
    const termPath = `${path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = objects(requiredSelector.nodeSelectorTerms);
    if (terms.length === 0)
      errs.push(required(termPath, "must have at least one node selector term"));
    else
      for (const [i, t] of terms.entries())
        errs.push(...validateNodeSelectorTerm(t, minor < 33, `${termPath}[${i}]`));
  }
  const preferred = objects(na.preferredDuringSchedulingIgnoredDuringExecution);
  preferred.forEach((term, i) => {
    const at = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    const weight = num(term.weight);
    if (weight <= 0 || weight > 100)
      errs.push(invalid(`${at}.weight`, weight, "must be in the range 1-100"));
    errs.push(...validateNodeSelectorTerm(ptr(term.preference) ?? {}, true, `${at}.preference`));
  });
  return errs;
}

function validateLabelKeys(path: string, keys: string[], selector: JsonObject | null): ErrorList {
  if (keys.length === 0) return [];
  if (!selector) return [forbidden(path, "must not be specified when labelSelector is not set")];
  const errs: ErrorList = [];
  for (const [i, key] of keys.entries()) errs.push(...validateLabelName(key, `${path}[${i}]`));
  return errs;
}

function validateMatchLabelKeysAndMismatchLabelKeys(
  path: string,
  matchLabelKeys: string[],
  mismatchLabelKeys: string[],
  selector: JsonObject | null,
): ErrorList {
  const errs = validateLabelKeys(`${path}.matchLabelKeys`, matchLabelKeys, selector);
  errs.push(...validateLabelKeys(`${path}.mismatchLabelKeys`, mismatchLabelKeys, selector));
  if (selector) {
    const indexOf = new Map<string, number>();
    for (const [i, key] of matchLabelKeys.entries()) indexOf.set(key, i);
    const selectorKeys = new Set(entries(selector.matchLabels).map(([k]) => k));
    for (const expr of objects(selector.matchExpressions)) {
      const key = str(expr.key);
      const i = indexOf.get(key);
      if (i !== undefined && selectorKeys.has(key))
        errs.push(invalid(`${path}[${i}]`, key, "exists in both matchLabelKeys and labelSelector"));
      selectorKeys.add(key);
    }
  }
  const mismatch = new Set(mismatchLabelKeys);
  matchLabelKeys.forEach((k, i) => {
    if (mismatch.has(k))
      errs.push(
        invalid(
          `${path}.matchLabelKeys[${i}]`,
          k,
          "exists in both matchLabelKeys and mismatchLabelKeys",
        ),
      );
  });
  return errs;
}

function validatePodAffinityTerm(term: JsonObject, allowInvalid: boolean, path: string): ErrorList {
  const opts = { AllowInvalidLabelValueInSelector: allowInvalid };
  const errs = validateLabelSelector(term.labelSelector, opts, `${path}.labelSelector`);
  errs.push(...validateLabelSelector(term.namespaceSelector, opts, `${path}.namespaceSelector`));
  for (const name of strings(term.namespaces))
    for (const msg of nameIsDNSLabel(name, false))
      errs.push(invalid(`${path}.namespace`, name, msg));
  errs.push(
    ...validateMatchLabelKeysAndMismatchLabelKeys(
      path,
      strings(term.matchLabelKeys),
      strings(term.mismatchLabelKeys),
      ptr(term.labelSelector),
    ),
  );
  const topologyKey = str(term.topologyKey);
  if (topologyKey.length === 0) errs.push(required(`${path}.topologyKey`, "can not be empty"));
  errs.push(...validateLabelName(topologyKey, `${path}.topologyKey`));
  return errs;
}

function validatePodAffinityLike(
  affinity: JsonObject,
  allowInvalid: boolean,
  path: string,
): ErrorList {
  const errs: ErrorList = [];
  const requiredTerms = affinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (isSet(requiredTerms))
    for (const [i, t] of objects(requiredTerms).entries())
      errs.push(
        ...validatePodAffinityTerm(
          t,
          allowInvalid,
          `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`,
        ),
      );
  const preferred = affinity.preferredDuringSchedulingIgnoredDuringExecution;
  if (isSet(preferred))
    objects(preferred).forEach((w, j) => {
      const at = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${j}]`;
      const weight = num(w.weight);
      if (weight <= 0 || weight > 100)
        errs.push(invalid(`${at}.weight`, weight, "must be in the range 1-100"));
      errs.push(
        ...validatePodAffinityTerm(
          ptr(w.podAffinityTerm) ?? {},
          allowInvalid,
          `${at}.podAffinityTerm`,
        ),
      );
    });
  return errs;
}

/** validateAffinity. */
export function validateAffinity(
  affinity: unknown,
  ctx: ValidationContext,
  path: string,
): ErrorList {
  const a = ptr(affinity);
  if (!a) return [];
  const errs: ErrorList = [];
  const allowInvalid = ctx.opts.AllowInvalidLabelValueInSelector;
  const node = ptr(a.nodeAffinity);
  if (node) errs.push(...validateNodeAffinity(node, `${path}.nodeAffinity`, ctx.minor));
  const pod = ptr(a.podAffinity);
  if (pod) errs.push(...validatePodAffinityLike(pod, allowInvalid, `${path}.podAffinity`));
  const anti = ptr(a.podAntiAffinity);
  if (anti) errs.push(...validatePodAffinityLike(anti, allowInvalid, `${path}.podAntiAffinity`));
  return errs;
}

const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/**
 * ValidateTolerations. From 1.35 `Lt` and `Gt` are operators of their own, refused while
 * AllowTaintTolerationComparisonOperators is off (its alpha gate, off by default through 1.37),
 * with all four listed as supported.
 */
export function validateTolerations(tolerations: unknown, path: string, minor: number): ErrorList {
  const errs: ErrorList = [];
  objects(tolerations).forEach((t, i) => {
    const at = `${path}[${i}]`;
    const key = str(t.key);
    const operator = str(t.operator);
    const value = str(t.value);
    const effect = str(t.effect);
    if (key.length > 0) errs.push(...validateLabelName(key, `${at}.key`));
    if (key.length === 0 && operator !== "Exists")
      errs.push(
        invalid(
          `${at}.operator`,
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (isSet(t.tolerationSeconds) && effect !== "NoExecute")
      errs.push(
        invalid(
          `${at}.effect`,
          effect,
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
    if (operator === "Equal" || operator === "") {
      const msgs = isValidLabelValue(value);
      if (msgs.length !== 0) errs.push(invalid(`${at}.operator`, value, msgs.join(";")));
    } else if (operator === "Exists") {
      if (value.length > 0)
        errs.push(
          invalid(`${at}.operator`, value, "value must be empty when `operator` is 'Exists'"),
        );
    } else if (minor >= 35 && (operator === "Lt" || operator === "Gt"))
      errs.push(notSupported(`${at}.operator`, operator, ["Equal", "Exists", "Lt", "Gt"]));
    else errs.push(notSupported(`${at}.operator`, operator, ["Equal", "Exists"]));
    if (effect.length > 0 && !taintEffects.includes(effect))
      errs.push(notSupported(`${at}.effect`, effect, taintEffects));
  });
  return errs;
}

const supportedScheduleActions = ["DoNotSchedule", "ScheduleAnyway"];
const nodeInclusionPolicies = ["Honor", "Ignore"];

/** validateTopologySpreadConstraints. */
export function validateTopologySpreadConstraints(
  constraints: unknown,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  const items = objects(constraints);
  items.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const maxSkew = num(c.maxSkew);
    if (maxSkew <= 0) errs.push(invalid(`${at}.maxSkew`, maxSkew, "must be greater than zero"));
    const topologyKey = str(c.topologyKey);
    if (topologyKey.length === 0) errs.push(required(`${at}.topologyKey`, "can not be empty"));
    const action = str(c.whenUnsatisfiable);
    if (!supportedScheduleActions.includes(action))
      errs.push(notSupported(`${at}.whenUnsatisfiable`, action, supportedScheduleActions));
    for (const rest of items.slice(i + 1))
      if (str(rest.topologyKey) === topologyKey && str(rest.whenUnsatisfiable) === action) {
        errs.push(
          duplicate(`${at}.{topologyKey, whenUnsatisfiable}`, `{${topologyKey}, ${action}}`),
        );
        break;
      }
    if (isSet(c.minDomains)) {
      const minDomains = num(c.minDomains);
      if (minDomains <= 0)
        errs.push(invalid(`${at}.minDomains`, minDomains, "must be greater than zero"));
      if (action !== "DoNotSchedule")
        errs.push(
          invalid(
            `${at}.minDomains`,
            minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`,
          ),
        );
    }
    for (const field of ["nodeAffinityPolicy", "nodeTaintsPolicy"])
      if (isSet(c[field]) && !nodeInclusionPolicies.includes(str(c[field])))
        errs.push(notSupported(`${at}.${field}`, str(c[field]), nodeInclusionPolicies));
    const matchLabelKeys = strings(c.matchLabelKeys);
    const selector = ptr(c.labelSelector);
    // From 1.35 the kubelet passes MatchLabelKeysInPodTopologySpreadSelectorMerge (beta, on):
    // a key may be in both matchLabelKeys and the selector's matchLabels (the keys are merged
    // into the selector); only a selector that already repeats such a key is refused.
    if (ctx.opts.AllowMatchLabelKeysInPodTopologySpreadSelectorMerge)
      errs.push(...validateMatchLabelKeysAndMismatchLabelKeys(at, matchLabelKeys, [], selector));
    else if (matchLabelKeys.length > 0) {
      const selectorKeys = new Set<string>();
      if (selector) {
        for (const [k] of entries(selector.matchLabels)) selectorKeys.add(k);
        for (const e of objects(selector.matchExpressions)) selectorKeys.add(str(e.key));
      } else
        errs.push(
          forbidden(`${at}.matchLabelKeys`, "must not be specified when labelSelector is not set"),
        );
      matchLabelKeys.forEach((key, j) => {
        errs.push(...validateLabelName(key, `${at}.matchLabelKeys[${j}]`));
        if (selectorKeys.has(key))
          errs.push(
            invalid(
              `${at}.matchLabelKeys[${j}]`,
              key,
              "exists in both matchLabelKeys and labelSelector",
            ),
          );
      });
    }
    if (!ctx.opts.AllowInvalidTopologySpreadConstraintLabelSelector)
      errs.push(
        ...validateLabelSelector(
          c.labelSelector,
          { AllowInvalidLabelValueInSelector: false },
          `${at}.labelSelector`,
        ),
      );
  });
  return errs;
}

/** validatePodDNSConfig. */
export function validatePodDNSConfig(
  dnsConfig: unknown,
  dnsPolicy: string,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const config = ptr(dnsConfig);
  const errs: ErrorList = [];
  if (dnsPolicy === "None") {
    if (!config) return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")];
    if (strings(config.nameservers).length === 0)
      return [
        required(
          `${path}.nameservers`,
          "must provide at least one DNS nameserver when `dnsPolicy` is None",
        ),
      ];
  }
  if (!config) return errs;
  const nameservers = strings(config.nameservers);
  if (nameservers.length > 3)
    errs.push(
      invalid(
        `${path}.nameservers`,
        goStrings(nameservers),
        "must not have more than 3 nameservers",
      ),
    );
  nameservers.forEach((ns, i) => {
    errs.push(...validateLegacyIP(ns, `${path}.nameservers[${i}]`, ctx));
  });
  const searches = strings(config.searches);
  if (searches.length > 32)
    errs.push(
      invalid(`${path}.searches`, goStrings(searches), "must not have more than 32 search paths"),
    );
  if (Buffer.byteLength(searches.join(" ")) > 2048)
    errs.push(
      invalid(
        `${path}.searches`,
        goStrings(searches),
        "must not have more than 2048 characters (including spaces) in the search list",
      ),
    );
  searches.forEach((search, i) => {
    const at = `${path}.searches[${i}]`;
    if (ctx.opts.AllowRelaxedDNSSearchValidation) {
      if (search !== ".") {
        const trimmed = search.endsWith(".") ? search.slice(0, -1) : search;
        for (const msg of isDNS1123SubdomainWithUnderscore(trimmed))
          errs.push(invalid(at, trimmed, msg));
      }
    } else {
      const trimmed = search.endsWith(".") ? search.slice(0, -1) : search;
      errs.push(...validateDNS1123Subdomain(trimmed, at));
    }
  });
  objects(config.options).forEach((option, i) => {
    if (str(option.name).length === 0)
      errs.push(required(`${path}.options[${i}]`, "must not be empty"));
  });
  return errs;
}

/** ValidateHostAliases. */
export function validateHostAliases(
  aliases: unknown,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  objects(aliases).forEach((alias, i) => {
    const ip = str(alias.ip);
    errs.push(...validateLegacyIP(ip, `${path}[${i}].ip`, ctx));
    strings(alias.hostnames).forEach((hostname, j) => {
      errs.push(...validateDNS1123Subdomain(hostname, `${path}[${i}].hostnames[${j}]`));
    });
  });
  return errs;
}

export function validateReadinessGates(gates: unknown, path: string): ErrorList {
  const errs: ErrorList = [];
  objects(gates).forEach((g, i) => {
    errs.push(...validateQualifiedName(str(g.conditionType), `${path}[${i}].conditionType`));
  });
  return errs;
}

export function validateSchedulingGates(gates: unknown, path: string): ErrorList {
  const errs: ErrorList = [];
  const seen = new Set<string>();
  objects(gates).forEach((g, i) => {
    const name = str(g.name);
    errs.push(...validateQualifiedName(name, `${path}[${i}]`));
    if (seen.has(name)) errs.push(duplicate(`${path}[${i}]`, name));
    seen.add(name);
  });
  return errs;
}

/** validateOS, then validateLinux / validateWindows. */
export function validateOS(spec: JsonObject, path: string, ctx: ValidationContext): ErrorList {
  const os = ptr(spec.os);
  if (!os) return [];
  const name = str(os.name);
  // 1.34 dropped the detail.
  if (name.length === 0)
    return [required(`${path}.os.name`, ctx.minor >= 34 ? "" : "cannot be empty")];
  if (name !== "linux" && name !== "windows")
    return [notSupported(`${path}.os`, name, ["linux", "windows"])];
  return name === "linux" ? validateLinux(spec, path) : validateWindows(spec, path, ctx);
}

function validateLinux(spec: JsonObject, path: string): ErrorList {
  const errs: ErrorList = [];
  const detail = "windows options cannot be set for a linux pod";
  if (ptr(ptr(spec.securityContext)?.windowsOptions))
    errs.push(forbidden(`${path}.securityContext.windowsOptions`, detail));
  for (const [c, at] of visitContainers(spec, path))
    if (ptr(ptr(c.securityContext)?.windowsOptions))
      errs.push(forbidden(`${at}.securityContext.windowsOptions`, detail));
  return errs;
}

/**
 * validateWindows. 1.37 checks the host namespaces (hostUsers, hostPID, hostIPC,
 * shareProcessNamespace) after the whole pod security context, and whether or not there is one;
 * before, they sat among its fields, inside its block.
 */
function validateWindows(spec: JsonObject, path: string, ctx: ValidationContext): ErrorList {
  const { minor } = ctx;
  const errs: ErrorList = [];
  const detail = "cannot be set for a windows pod";
  // The decoded pod's: `supplementalGroups: []` is set (not nil), which the wire form drops.
  const sc = ptr(decodedAt(ctx, `${path}.securityContext`)) ?? ptr(spec.securityContext);
  const scField = (field: string) => {
    if (sc && isSet(sc[field])) errs.push(forbidden(`${path}.securityContext.${field}`, detail));
  };
  const hostUsers = () => {
    if (isSet(spec.hostUsers)) errs.push(forbidden(`${path}.hostUsers`, detail));
  };
  const hostPIDAndIPC = () => {
    if (spec.hostPID === true) errs.push(forbidden(`${path}.hostPID`, detail));
    if (spec.hostIPC === true) errs.push(forbidden(`${path}.hostIPC`, detail));
  };
  const shareProcessNamespace = () => {
    if (isSet(spec.shareProcessNamespace))
      errs.push(forbidden(`${path}.shareProcessNamespace`, detail));
  };
  const sysctls = () => {
    if (sc && objects(sc.sysctls).length > 0)
      errs.push(forbidden(`${path}.securityContext.sysctls`, detail));
  };
  const late = ["runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy"];
  if (minor >= 37) {
    for (const f of ["appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup"]) scField(f);
    scField("fsGroupChangePolicy");
    sysctls();
    for (const f of [...late, "seLinuxChangePolicy"]) scField(f);
    hostUsers();
    hostPIDAndIPC();
    shareProcessNamespace();
  } else if (sc) {
    scField("appArmorProfile");
    scField("seLinuxOptions");
    hostUsers();
    hostPIDAndIPC();
    for (const f of ["seccompProfile", "fsGroup", "fsGroupChangePolicy"]) scField(f);
    sysctls();
    shareProcessNamespace();
    for (const f of [...late, "seLinuxChangePolicy"]) scField(f);
  }
  for (const [c, at] of visitContainers(spec, path)) {
    const csc = ptr(c.securityContext);
    if (!csc) continue;
    for (const field of [
      "appArmorProfile",
      "seLinuxOptions",
      "seccompProfile",
      "capabilities",
      "readOnlyRootFilesystem",
      "privileged",
      "allowPrivilegeEscalation",
      "procMount",
      "runAsUser",
      "runAsGroup",
    ])
      if (isSet(csc[field])) errs.push(forbidden(`${at}.securityContext.${field}`, detail));
  }
  return errs;
}
