// Where the copy's refusal texts may part from the kubelet's (test/differential/verdicts.ts
// textDivergence: the field of the last error both texts name before they differ), for file and
// URL verdicts alike, both sides refusing, and why (docs/validation.md "refusal-texts"). Only
// paths whose cause is not ported and cannot be are listed: seven campaigns of 100,000
// manifests and 5,000 URL bodies over every minor part only at these. Error lists that part
// after a field's error are a bug of the copy, not an entry here. A path not listed fails the
// differential tests until it is understood.

/** The parser's wording: a manifest that does not parse (Go's yaml and encoding/json word it otherwise). */
const parserWording = ["(start)"];

/**
 * Values Go prints as structs: %#v with pointer addresses up to 1.33 (no copy can print an
 * address), and for a few types JSON from 1.34 not ported.
 */
const structValues = [
  "metadata.ownerReferences",
  "spec.containers[].resources.claims[]",
  "spec.containers[].securityContext",
  "spec.containers[].securityContext.seccompProfile.localhostProfile",
  "spec.ephemeralContainers[].securityContext",
  "spec.ephemeralContainers[].securityContext.seccompProfile.localhostProfile",
  "spec.initContainers[].securityContext",
  "spec.initContainers[].securityContext.seccompProfile.localhostProfile",
  "spec.resourceClaims[]",
  "spec.resources.claims",
  "spec.securityContext.seccompProfile.localhostProfile",
  "spec.volumes[].ephemeral.volumeClaimTemplate.spec",
  "spec.volumes[].projected.sources[].clusterTrustBundle",
  "spec.volumes[].projected.sources[].clusterTrustBundle.labelSelector",
];

/**
 * Go's map order over a resource list (several errors out of one map come in random order,
 * with an inf.Dec quantity printed as a pointer up to 1.33).
 */
const resourceMapOrder = [
  "spec.containers[].resources.limits",
  "spec.containers[].resources.limits[example.com/gpu]",
  "spec.containers[].resources.limits[hugepages-2Mi]",
  "spec.containers[].resources.requests",
  "spec.containers[].resources.requests[example.com/gpu]",
  "spec.containers[].resources.requests[hugepages-2Mi]",
  "spec.ephemeralContainers[].resources.limits[example.com/gpu]",
  "spec.ephemeralContainers[].resources.requests",
  "spec.ephemeralContainers[].resources.requests[example.com/gpu]",
  "spec.initContainers[].resources.limits",
  "spec.initContainers[].resources.limits[example.com/gpu]",
  "spec.initContainers[].resources.limits[hugepages-2Mi]",
  "spec.initContainers[].resources.requests",
  "spec.initContainers[].resources.requests[example.com/gpu]",
  "spec.overhead.*[example.com/gpu]",
  "spec.resources.limits[ephemeral-storage]",
  "spec.resources.limits[example.com/gpu]",
  "spec.resources.limits[hugepages-2Mi]",
  "spec.resources.requests[ephemeral-storage]",
];

export const RefusalTextPaths: ReadonlySet<string> = new Set([
  ...parserWording,
  ...structValues,
  ...resourceMapOrder,
]);
