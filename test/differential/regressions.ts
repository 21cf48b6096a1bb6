// Manifests kubelet 1.32 refuses that this copy once accepted (issue 16): each stays a case
// of every differential run, as a file and as the manifest URL's body.
const pod = (name: string, container: string, extra = ""): string =>
  `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: app
${container}${extra}`;

export const refusedBodies: readonly { name: string; text: string }[] = [
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
];

// Manifests the kubelet accepts where an oracle once refused them: the oracle must run the
// kubelet's start-up (capabilities.Initialize with AllowPrivileged, as RunKubelet does).
export const acceptedBodies: readonly { name: string; text: string }[] = [
  {
    name: "a privileged container",
    text: pod(
      "privileged",
      "    image: nginx:1.27\n    securityContext:\n      privileged: true\n",
    ),
  },
];
