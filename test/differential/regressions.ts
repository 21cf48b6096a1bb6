// Manifests the kubelet refuses that this copy once accepted, and op sequences whose
// notifications once differed: each stays a case of every differential run (a manifest as a file
// and as the manifest URL's body), for the minors named (every minor when none are).
import { atLeast, type KubeletMinor, KubeletMinors } from "../../src/core/version.js";
import type { GoPodForm, OpSequence } from "../support/merge_gen.js";

export interface RegressionBody {
  name: string;
  text: string;
  /**
   * The minors it holds for; all when absent. A case that holds up to the newest is written
   * from(<first>), so that a new minor runs it too.
   */
  minors?: readonly KubeletMinor[];
}

/** `first` and every later claimed minor. */
const from = (first: KubeletMinor): readonly KubeletMinor[] =>
  KubeletMinors.filter((minor) => atLeast(minor, first));

/** Quantity spellings through every path of resource.ParseQuantity, RoundUp and DeepCopy. */
const quantities = [
  "1.5Gi",
  "0.1",
  "100m",
  "1",
  "0",
  "0.0",
  "0.0Gi",
  "-1.5Gi",
  "1e3",
  "1E-3",
  "1e-12",
  "123456789012345678901",
  "9223372036854775807",
  "9223372036854775808",
  "18446744073709551616Ei",
  "0.000000000000000000001",
  "1.000000000001",
  "5Ki",
  "1024Ki",
  "1.1Ki",
  "0.5Ki",
  "2.5",
  "12345678901234567890m",
  "1n",
  "1u",
  "0.5n",
  "-0.5n",
  "1Ei",
  "8Ei",
  "1.5E3",
  "+5",
  "05",
  "1.0",
  "100000000000000000000000000000000",
];

const pod = (name: string, container: string, extra = ""): string =>
  `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: app
${container}${extra}`;

export const refusedBodies: readonly RegressionBody[] = [
  {
    name: "memory limit 512MB (not a quantity)",
    text: pod(
      "bad-quantity",
      "    image: nginx:1.27\n    resources:\n      limits:\n        memory: 512MB\n",
    ),
  },
  {
    name: "cpu request 200m above its limit 100m",
    text: pod(
      "request-above-limit",
      "    image: nginx:1.27\n    resources:\n      requests:\n        cpu: 200m\n      limits:\n        cpu: 100m\n",
    ),
  },
  {
    name: "hostPath /var/../etc",
    text: pod(
      "dotdot-hostpath",
      "    image: nginx:1.27\n",
      "  volumes:\n  - name: etc\n    hostPath:\n      path: /var/../etc\n",
    ),
  },
  {
    name: "image ' nginx:1.27' with a leading space",
    text: pod("leading-space-image", "    image: ' nginx:1.27'\n"),
  },
  {
    // apimachinery's BannedOwners (ValidateOwnerReferences): read from upstream,
    // stored here before (a false ready from the manifest URL).
    name: "an owner reference to a v1 Event",
    text: `apiVersion: v1
kind: Pod
metadata:
  name: event-owned
  ownerReferences:
  - {apiVersion: v1, kind: Event, name: e1, uid: u1}
spec:
  containers:
  - name: app
    image: nginx:1.27
`,
  },
  {
    // metav1validation.ValidateManagedFields (ValidateObjectMeta): read from upstream in
    // stored here before (a false ready from the manifest URL).
    name: "managedFields with an unknown operation",
    text: `apiVersion: v1
kind: Pod
metadata:
  name: managed-fields
  managedFields:
  - {manager: kubectl, operation: Patch}
spec:
  containers:
  - name: app
    image: nginx:1.27
`,
  },
  {
    // helper.GetTolerationsFromPodAnnotations: Go's json.Unmarshal into []core.Toleration
    // refuses an object; this copy read it as no tolerations (an audit of ValidatePodCreate).
    name: "a tolerations annotation that is an object, not a list",
    text: `apiVersion: v1
kind: Pod
metadata:
  name: tolerations-object
  annotations:
    scheduler.alpha.kubernetes.io/tolerations: '{}'
spec:
  containers:
  - name: app
    image: nginx:1.27
`,
  },
  {
    // From 1.33 AllowInvalidLabelValueInRequiredNodeAffinity is false for the kubelet.
    name: "a required node affinity term with an invalid label value (1.33+)",
    text: pod(
      "affinity-value",
      "    image: nginx:1.27\n",
      "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: k, operator: In, values: ['a b']}]\n",
    ),
    minors: from("1.33"),
  },
  {
    // netutils.ParseIPSloppy takes no IPv6 zone; Node's isIPv6 did.
    name: "a host alias with a zoned IPv6 address",
    text: pod(
      "zoned-ip",
      "    image: nginx:1.27\n",
      "  hostAliases:\n  - {ip: 'fe80::1%eth0', hostnames: [a]}\n",
    ),
  },
  {
    // 1.36's AllowExistingRestartContainerForNonSidecarInitContainer, false for the kubelet.
    name: "a plain init container whose resize policy restarts it (1.36+)",
    text: `apiVersion: v1
kind: Pod
metadata:
  name: init-resize
spec:
  initContainers:
  - name: init
    image: busybox:1.36
    resizePolicy: [{resourceName: cpu, restartPolicy: RestartContainer}]
  containers:
  - name: app
    image: nginx:1.27
`,
    minors: from("1.36"),
  },
  {
    // go-yaml v2 resolves a plain scalar that starts with a sign or a digit as a number once
    // every "_" is removed (resolve.go); this copy kept `+_1` a string (an audit of the decode).
    name: "an env value +_1, a number to go-yaml",
    text: pod("underscore-number", "    image: nginx:1.27\n    env: [{name: A, value: +_1}]\n"),
  },
  {
    // go-yaml v2's reader refuses control characters anywhere, comments included.
    name: "a DEL character in a comment",
    text: `${pod("del-comment", "    image: nginx:1.27\n")}# bad \x7f\n`,
  },
  {
    // go-yaml v2 reads YAML 1.1 only: "found incompatible YAML document".
    name: "a %YAML 1.2 directive",
    text: `%YAML 1.2\n---\n${pod("yaml-12", "    image: nginx:1.27\n")}`,
  },
  {
    // \/ is YAML 1.2's escape, not go-yaml v2's.
    name: "a double-quoted \\/ escape",
    text: pod("slash-escape", '    image: "nginx\\/1"\n'),
  },
  {
    // meta.Interpret reads apiVersion with encoding/json: every case-insensitive match, the last.
    name: "a JSON apiversion key after apiVersion",
    text: '{"apiVersion":"v1","apiversion":"v2","kind":"Pod","metadata":{"name":"case-dup"},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}\n',
  },
  {
    // validateWindows: SupplementalGroups != nil; the wire form drops the empty list.
    name: "a windows pod with supplementalGroups: []",
    text: pod(
      "windows-groups",
      "    image: nginx:1.27\n",
      "  os: {name: windows}\n  securityContext: {supplementalGroups: []}\n",
    ),
  },
  {
    // Up to 1.33 an ephemeral volume is allowed in a static pod, and its claim template is
    // validated (ValidatePersistentVolumeClaimTemplate); from 1.34 any is refused.
    name: "an ephemeral volume's claim template without access modes or storage",
    text: pod(
      "claim-template",
      "    image: nginx:1.27\n",
      "  volumes:\n  - name: scratch\n    ephemeral:\n      volumeClaimTemplate:\n        metadata: {name: x}\n        spec: {}\n",
    ),
  },
  // Rules 1.33-1.37 added for fields a static pod can set, once declared "unported" for 1.37.
  {
    name: "hostnameOverride that is not a DNS subdomain (1.34+)",
    text: pod("hostname-override", "    image: nginx:1.27\n", "  hostnameOverride: bad_name!\n"),
    minors: from("1.37"),
  },
  {
    name: "bindMountOptions that are not supported, and repeated (1.37)",
    text: pod(
      "bind-mount-options",
      "    image: nginx:1.27\n    volumeMounts:\n    - {name: v, mountPath: /x, bindMountOptions: [noexec, bad, noexec]}\n",
      "  volumes:\n  - {name: v, emptyDir: {}}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "lifecycle.stopSignal without spec.os (1.33+)",
    text: pod("stop-signal", "    image: nginx:1.27\n    lifecycle: {stopSignal: SIGTERM}\n"),
    minors: from("1.37"),
  },
  {
    name: "a probe's httpGet.protocol HTTP (1.37: HTTP1 or HTTP2)",
    text: pod(
      "http-protocol",
      "    image: nginx:1.27\n    livenessProbe: {httpGet: {port: 80, protocol: HTTP}}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "a grpc probe's unknown mode (1.37)",
    text: pod(
      "grpc-mode",
      "    image: nginx:1.27\n    startupProbe: {grpc: {port: 80, mode: web}}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "an empty schedulingGroup (1.36+)",
    text: pod("scheduling-group", "    image: nginx:1.27\n", "  schedulingGroup: {}\n"),
    minors: from("1.37"),
  },
  {
    name: "an image volume without a reference (1.37)",
    text: pod("image-volume", "    image: nginx:1.27\n", "  volumes:\n  - {name: v, image: {}}\n"),
    minors: from("1.37"),
  },
  {
    name: "an emptyDir mode above 01777 and a negative projected file user (1.37)",
    text: pod(
      "modes-and-users",
      "    image: nginx:1.27\n",
      "  volumes:\n  - {name: v, emptyDir: {mode: 4095}}\n  - {name: w, downwardAPI: {defaultUser: -1, items: [{path: p, fieldRef: {fieldPath: metadata.name}}]}}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "pod-level resources: an empty claims list and ephemeral-storage (1.35+)",
    text: pod(
      "pod-resources",
      "    image: nginx:1.27\n",
      "  resources:\n    claims: []\n    requests: {ephemeral-storage: 1Gi}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "pod-level requests below the containers' sum, sidecar included (1.35+)",
    text: pod(
      "pod-resources-low",
      "    image: nginx:1.27\n    resources: {requests: {cpu: 700m}}\n",
      "  initContainers:\n  - {name: side, image: busybox, restartPolicy: Always, resources: {requests: {cpu: 400m}}}\n  resources:\n    requests: {cpu: '1'}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "an env fileKeyRef to a volume that is not an emptyDir (1.34+)",
    text: pod(
      "file-key-ref",
      "    image: nginx:1.27\n    env:\n    - {name: A, valueFrom: {fileKeyRef: {volumeName: v, path: p, key: k}}}\n",
      "  volumes:\n  - {name: v, configMap: {name: c}}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "an image volume mounted with a subPathExpr (1.32)",
    text: pod(
      "image-subpath",
      "    image: nginx:1.27\n    volumeMounts:\n    - {name: v, mountPath: /x, subPathExpr: sub/gamma}\n",
      "  volumes:\n  - {name: v, image: {reference: busybox, pullPolicy: IfNotPresent}}\n",
    ),
    minors: ["1.32"],
  },
  {
    // The oracle-1.35 campaign (seed 41): 657 of 100,000 manifests and bodies accepted here, a
    // false ready. 1.35's validateWorkloadReference checks podGroup (and name) even when empty;
    // 1.36 replaced workloadRef with schedulingGroup, and up to 1.34 the field does not decode.
    name: "a workloadRef without a podGroup (1.35)",
    text: pod("workload-ref", "    image: nginx:1.27\n", "  workloadRef: {name: cache-0}\n"),
    minors: ["1.35"],
  },
];

// Manifests the kubelet accepts where an oracle once refused them: the oracle must run the
// kubelet's start-up (capabilities.Initialize with AllowPrivileged, as RunKubelet does).
/**
 * Manifests whose internal Pod is easy to print wrongly into the static pod UID's hash
 * (hash.DeepHashObject): quantities held as int64Amount or inf.Dec, rounded or not; the host
 * namespace fields the internal type moved (up to 1.36); the deprecated service account; an
 * IntOrString of each kind; map keys past the BMP; a PodList. Their dumps are compared with the
 * kubelet's byte for byte, whether or not the kubelet would then refuse the pod.
 */
export const hashDumpBodies: readonly (RegressionBody & { accepted?: true })[] = [
  {
    name: "quantities the kubelet accepts, held as int64Amount and as inf.Dec",
    accepted: true,
    text: `apiVersion: v1
kind: Pod
metadata:
  name: valid-quantities
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources:
      limits: {cpu: "1.5", memory: 1.5Gi, ephemeral-storage: 1e3, example.com/gpu: "2"}
      requests: {cpu: 0.0001, memory: 1.000000000001Gi}
  volumes:
  - {name: a, emptyDir: {sizeLimit: 0.5Ki}}
  - {name: b, emptyDir: {sizeLimit: 1.000000000001}}
  - {name: c, emptyDir: {sizeLimit: 18446744073709551616Ei}}
  - {name: d, emptyDir: {sizeLimit: 123456789012345678901m}}
`,
  },
  {
    name: "quantities of every form, as resource limits (rounded), emptyDir sizes and a divisor",
    text: JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "quantities" },
      spec: {
        containers: [
          {
            name: "app",
            image: "nginx:1.27",
            resources: {
              limits: Object.fromEntries(quantities.map((q, i) => [`r${i}.example.com/x`, q])),
            },
          },
        ],
        overhead: { cpu: "1.5", memory: "0.5Gi" },
        volumes: [
          ...quantities.map((q, i) => ({ name: `v${i}`, emptyDir: { sizeLimit: q } })),
          {
            name: "d",
            downwardAPI: {
              items: [{ path: "p", resourceFieldRef: { resource: "limits.cpu", divisor: "1.5m" } }],
            },
          },
        ],
      },
    }),
  },
  {
    name: "host namespaces, a shared process namespace, probes by name and port, podIP, map keys past the BMP",
    accepted: true,
    text: `apiVersion: v1
kind: Pod
metadata:
  name: host-fields
  annotations: {pod.beta.kubernetes.io/init-containers: "[]", b: x}
spec:
  hostNetwork: true
  hostIPC: true
  shareProcessNamespace: true
  hostUsers: true
  terminationGracePeriodSeconds: -5
  containers:
  - name: app
    image: nginx:1.27
    ports: [{containerPort: 80}]
    livenessProbe: {httpGet: {port: http}}
    readinessProbe: {tcpSocket: {port: 8080}}
  volumes:
  - name: flex
    flexVolume:
      driver: example.com/flex
      options: {"\\U0001F600": a, "\\uFF21": b, a: c}
status:
  podIP: 10.0.0.1
  podIPs: [{ip: 10.0.0.2}]
`,
  },
  {
    // The template's spec is a struct: SetDefaults_PersistentVolumeClaimSpec gives it a
    // volumeMode even when the manifest has none (seen in the 1.33 campaign's hash dumps).
    name: "an ephemeral volume's claim template without a spec",
    text: pod(
      "template-without-spec",
      "    image: nginx:1.27\n",
      "  volumes:\n  - name: scratch\n    ephemeral:\n      volumeClaimTemplate: {}\n",
    ),
  },
  {
    // Refused from 1.34 (static pods may not reference service accounts), hashed before that.
    name: "the deprecated serviceAccount field alone",
    text: pod("legacy-account", "    image: nginx:1.27\n", "  serviceAccount: legacy\n"),
  },
  {
    name: "a PodList of two pods",
    accepted: true,
    text: JSON.stringify({
      apiVersion: "v1",
      kind: "PodList",
      items: [
        { metadata: { name: "a" }, spec: { containers: [{ name: "c", image: "i" }] } },
        {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "b", labels: { x: "y" } },
          spec: { containers: [{ name: "c", image: "i", resources: { limits: { cpu: "0.5" } } }] },
        },
      ],
    }),
  },
];

export const acceptedBodies: readonly RegressionBody[] = [
  {
    // go-yaml v2 takes \' in double quotes (YAML 1.2 does not): refused here before.
    name: "a double-quoted \\' escape",
    text: pod("quote-escape", '    image: nginx:1.27\n    args: ["it\\\'s"]\n'),
  },
  {
    // ParseGroupVersion("/v1") is the core group's v1: refused here before.
    name: "apiVersion /v1",
    text: pod("slash-v1", "    image: nginx:1.27\n").replace("apiVersion: v1", "apiVersion: /v1"),
  },
  {
    // A float beyond float64 stays a string to go-yaml v2: refused here before (Infinity).
    name: "an annotation value 1e400",
    text: pod("big-float", "    image: nginx:1.27\n").replace(
      "  name: big-float\n",
      "  name: big-float\n  annotations: {a: 1e400}\n",
    ),
  },
  {
    // go-yaml v2 applies a merge key where it stands: it overrides the key before it.
    name: "a merge key after an explicit key",
    text: pod(
      "merge-order",
      "    image: nginx:1.27\n",
      "  hostNetwork: false\n  <<: {hostNetwork: true}\n",
    ),
  },
  {
    // validFirstDigit takes any leading "-", then strconv.ParseInt: refused here before.
    name: "a pod deletion cost of -0",
    text: `apiVersion: v1
kind: Pod
metadata:
  name: deletion-cost
  annotations:
    controller.kubernetes.io/pod-deletion-cost: '-0'
spec:
  containers:
  - name: app
    image: nginx:1.27
`,
  },
  {
    // Refused here before fileKeyRef counted as a source ("must specify one of ...").
    name: "an env fileKeyRef to an emptyDir volume (1.34+)",
    text: pod(
      "file-key-ref-ok",
      "    image: nginx:1.27\n    env:\n    - {name: A, valueFrom: {fileKeyRef: {volumeName: v, path: p, key: k}}}\n",
      "  volumes:\n  - {name: v, emptyDir: {}}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "pod-level resources that cover the containers' (1.35+)",
    text: pod(
      "pod-resources-ok",
      "    image: nginx:1.27\n    resources: {requests: {cpu: 500m}}\n",
      "  resources:\n    requests: {cpu: '1'}\n    limits: {cpu: '2'}\n",
    ),
  },
  {
    name: "a Linux stop signal, HTTP2 and TLS probes, supported bindMountOptions",
    text: pod(
      "newer-fields-ok",
      "    image: nginx:1.27\n    lifecycle: {stopSignal: SIGRTMAX-3}\n    readinessProbe: {httpGet: {port: 80, protocol: HTTP2}}\n    startupProbe: {grpc: {port: 81, mode: TLS}}\n    volumeMounts:\n    - {name: v, mountPath: /x, bindMountOptions: [noexec, nosuid]}\n",
      "  os: {name: linux}\n  volumes:\n  - {name: v, emptyDir: {}}\n",
    ),
  },
  {
    // ParseNormalizedNamed refuses the path library/<255 x>, so the tag is "", not "latest".
    name: "imagePullPolicy of a 255-character image name: IfNotPresent",
    text: pod("long-image", `    image: ${"x".repeat(255)}\n`),
  },
  {
    name: "imagePullPolicy of an image tagged latest with a short digest: IfNotPresent",
    text: pod("short-digest", `    image: nginx:latest@sha256:${"a".repeat(32)}\n`),
  },
  {
    // go-yaml v2 reads plain integers with Go's strconv.ParseInt(s, 0, 64): 0o644 is 420.
    name: "defaultMode: 0o644, and 0X1A4 and 0_o644 (YAML, Go's integer prefixes)",
    text: pod(
      "go-octal",
      "    image: nginx:1.27\n",
      "  volumes:\n  - {name: a, downwardAPI: {defaultMode: 0o644}}\n  - {name: b, downwardAPI: {defaultMode: 0X1A4}}\n  - {name: c, downwardAPI: {defaultMode: 0_o644}}\n",
    ),
  },
  {
    // Refused here before: from 1.35 the kubelet merges matchLabelKeys into the selector.
    name: "a topology spread matchLabelKeys key also in the selector's matchLabels (1.35+)",
    text: pod(
      "match-label-keys",
      "    image: nginx:1.27\n",
      "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: a}}, matchLabelKeys: [app]}\n",
    ),
    minors: from("1.37"),
  },
  {
    name: "an ephemeral volume with a valid claim template (up to 1.33)",
    text: pod(
      "claim-template-ok",
      "    image: nginx:1.27\n",
      "  volumes:\n  - name: scratch\n    ephemeral:\n      volumeClaimTemplate:\n        spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n",
    ),
    minors: ["1.32"],
  },
  {
    // From 1.37 the items keep their apiVersion and kind (the PodList conversion is a cast).
    name: "a PodList whose items carry apiVersion and kind",
    text: `apiVersion: v1
kind: PodList
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: listed}
  spec:
    containers:
    - {name: app, image: nginx:1.27}
`,
  },
  {
    name: "a privileged container",
    text: pod(
      "privileged",
      "    image: nginx:1.27\n    securityContext:\n      privileged: true\n",
    ),
  },
  {
    // From 1.33 ValidateVolumeMounts no longer refuses a subPath on an image volume (the oracle
    // campaign of 1.33 found this copy refusing it).
    name: "an image volume mounted with a subPathExpr (1.33+)",
    text: pod(
      "image-subpath",
      "    image: nginx:1.27\n    volumeMounts:\n    - {name: v, mountPath: /x, subPathExpr: sub/gamma}\n",
      "  volumes:\n  - {name: v, image: {reference: busybox, pullPolicy: IfNotPresent}}\n",
    ),
    minors: from("1.33"),
  },
  {
    // 1e21 is an int64Amount (value 1, scale 21) whose MilliValue and Value overflow to 0 in Go
    // (positiveScaleInt64), an integer and a multiple of any page size; this copy took the
    // wrapped 1e24 and refused "must be an integer" (a 1.32 campaign).
    name: "an extended resource overhead and a hugepage limit of 1e21",
    text: pod(
      "overflow",
      "    image: nginx:1.27\n    resources:\n      limits: {hugepages-2Mi: 1e21, memory: 1Gi}\n      requests: {hugepages-2Mi: 1e21, memory: 1Gi}\n",
      "  overhead: {example.com/gpu: 1e+21}\n",
    ),
  },
];

export interface RegressionSequence {
  name: string;
  /** In the release's pod form, as merge_gen.ts writes its pool. */
  sequence: (form: GoPodForm) => OpSequence;
}

/** A pod as merge_gen.ts's pool writes it. */
const pooled =
  (form: GoPodForm) => (uid: string, namespace: string, name: string, image: string) => ({
    metadata: {
      name,
      namespace,
      uid,
      ...(form.nullCreationTimestamp ? { creationTimestamp: null } : {}),
      labels: { app: "y" },
    },
    spec: { containers: [{ name: "c", image, resources: {} }] },
    status: {},
  });

export const divergedSequences: readonly RegressionSequence[] = [
  {
    // A 1.34 campaign (seed 63), shrunk: uid-4 is first stored as pod-0/b, then
    // sent as pod-3/a beside uid-0 as pod-0/b (stored under its first name, as the kubelet keeps
    // it), then both are sent as pod-0/b. The kubelet drops the second pod-0/b as a duplicate
    // name and removes uid-4; this copy took the last SET for a resync of the stored pods (their
    // stored names matched) and updated both.
    name: "a UID stored under an older name, then sent under a name another UID has",
    sequence: (form) => {
      const pod = pooled(form);
      return {
        mode: "incremental",
        sources: ["file", "api"],
        steps: [
          { source: "api", op: "UPDATE", pods: [pod("uid-4", "b", "pod-0", "v1")] },
          {
            source: "api",
            op: "SET",
            pods: [pod("uid-0", "b", "pod-0", "v2"), pod("uid-4", "a", "pod-3", "v2")],
          },
          {
            source: "api",
            op: "SET",
            pods: [pod("uid-0", "b", "pod-0", "v3"), pod("uid-4", "b", "pod-0", "v3")],
          },
        ],
      };
    },
  },
];
