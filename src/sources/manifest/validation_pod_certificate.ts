// The podCertificate projected source (validation.go's validateProjectionSources, 1.34 on;
// names.go ValidateSignerName and IsKubernetesSignerName; validation.go
// ValidateUserAnnotations, 1.35 on). A static pod that projects one is refused after
// validation anyway (validation_static.ts: it references podcertificates); these errors come
// first in the kubelet's refusal text. Fields a minor lacks are dropped by its typed decode.
import {
  byteLength,
  type ErrorList,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  notSupported,
  required,
  tooLong,
} from "./field.js";
import { entries, isSet, num, str } from "./validation_json.js";
import { exceedsAnnotationSizeLimit, totalAnnotationSizeLimitB } from "./validation_names.js";
import { validateLocalNonReservedPath, validateUserField } from "./validation_paths.js";

const keyTypes = ["RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"];

/** pkg/apis/certificates: MaxMaxExpirationSeconds, KubernetesMaxMaxExpirationSeconds. */
const maxMaxExpirationSeconds = 91 * 24 * 60 * 60;
const kubernetesMaxMaxExpirationSeconds = 24 * 60 * 60;

/** validation.DNS1123SubdomainMaxLength and DNS1123LabelMaxLength. */
const subdomainMax = 253;
const labelMax = 63;

/**
 * One podCertificate source. `claim` takes a path into the projection's shared set: one another
 * source already holds is "conflicting duplicate paths" on the projected volume, in its place
 * among this source's errors.
 */
export function validatePodCertificateProjection(
  cert: Record<string, unknown>,
  projPath: string,
  claim: (path: string) => ErrorList,
): ErrorList {
  const signerName = str(cert.signerName);
  const errs = validateSignerName(`${projPath}.signerName`, signerName);
  if (isSet(cert.userAnnotations))
    errs.push(...validateUserAnnotations(cert.userAnnotations, `${projPath}.userAnnotations`));
  errs.push(...validateUserField(cert.user, `${projPath}.user`));
  const keyType = str(cert.keyType);
  if (!keyTypes.includes(keyType))
    errs.push(notSupported(`${projPath}.keyType`, keyType, keyTypes));
  if (isSet(cert.maxExpirationSeconds)) {
    const seconds = num(cert.maxExpirationSeconds);
    const at = `${projPath}.maxExpirationSeconds`;
    if (seconds < 3600)
      errs.push(invalid(at, seconds, "if provided, maxExpirationSeconds must be >= 3600"));
    const max = isKubernetesSignerName(signerName)
      ? kubernetesMaxMaxExpirationSeconds
      : maxMaxExpirationSeconds;
    if (seconds > max)
      errs.push(invalid(at, seconds, `if provided, maxExpirationSeconds must be <= ${max}`));
  }
  let numPaths = 0;
  for (const field of ["credentialBundlePath", "keyPath", "certificateChainPath"]) {
    const path = str(cert[field]);
    if (path.length === 0) continue;
    numPaths++;
    errs.push(...validateLocalNonReservedPath(path, `${projPath}.${field}`));
    errs.push(...claim(path));
  }
  if (numPaths === 0)
    errs.push(
      required(
        projPath,
        "specify at least one of credentialBundlePath, keyPath, and certificateChainPath",
      ),
    );
  return errs;
}

/** IsKubernetesSignerName: the host part is kubernetes.io or one of its subdomains. */
function isKubernetesSignerName(signerName: string): boolean {
  const host = signerName.split("/")[0] as string;
  return host === "kubernetes.io" || host.endsWith(".kubernetes.io");
}

/** ValidateSignerName: `domain.example/path`, each part of DNS labels, at most 571 bytes. */
export function validateSignerName(path: string, signerName: string): ErrorList {
  if (signerName.length === 0) return [required(path)];
  const segments = signerName.split("/");
  if (segments.length !== 2)
    return [
      invalid(
        path,
        signerName,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'",
      ),
    ];
  const [domain, signerPath] = segments as [string, string];
  const errs: ErrorList = [];
  if (byteLength(domain) > subdomainMax) errs.push(tooLong(path, subdomainMax));
  const domainLabels = domain.split(".");
  errs.push(...firstBadLabel(path, domain, isDNS1123Label));
  if (domainLabels.length < 2)
    errs.push(
      invalid(path, domain, "should be a domain with at least two segments separated by dots"),
    );
  errs.push(...firstBadLabel(path, signerPath, isDNS1123Subdomain));
  const maxSignerName = subdomainMax + (subdomainMax + labelMax + 1) + 1;
  if (byteLength(signerName) > maxSignerName) errs.push(tooLong(path, maxSignerName));
  return errs;
}

/**
 * The first "."-separated label of `segment` that `check` refuses, each message of it; upstream
 * stops there, since the rest would repeat the same messages.
 */
function firstBadLabel(
  path: string,
  segment: string,
  check: (label: string) => string[],
): ErrorList {
  for (const label of segment.split(".")) {
    const msgs = check(label);
    if (msgs.length > 0)
      return msgs.map((msg) => invalid(path, segment, `validating label "${label}": ${msg}`));
  }
  return [];
}

/**
 * ValidateUserAnnotations: every key domain-prefixed (IsDomainPrefixedKey on the lowercased
 * key), and the annotations' size limit. Keys in the manifest's order (Go's map order is random).
 */
function validateUserAnnotations(annotations: unknown, path: string): ErrorList {
  const errs: ErrorList = [];
  const map = new Map<string, string>();
  for (const [key, value] of entries(annotations)) {
    map.set(key, str(value));
    errs.push(...isDomainPrefixedKey(path, key.toLowerCase()));
  }
  if (exceedsAnnotationSizeLimit(map)) errs.push(tooLong(path, totalAnnotationSizeLimitB));
  return errs;
}

/** apimachinery's IsDomainPrefixedKey: a label key (content.IsLabelKey) with a prefix. */
function isDomainPrefixedKey(path: string, key: string): ErrorList {
  if (key.length === 0) return [required(path)];
  const msgs = isQualifiedName(key);
  if (msgs.length > 0) return msgs.map((msg) => invalid(path, key, msg));
  if (key.split("/").length !== 2)
    return [invalid(path, key, 'must be a domain-prefixed key (such as "acme.io/foo")')];
  return [];
}
