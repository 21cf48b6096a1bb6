// What the demo manifest URL serves once it is up: the load balancer pair an HA control plane
// often runs as static pods from a URL (kube-vip style), as a v1 PodList.

function staticPod(name: string, image: string, args: string[]) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "kube-system",
      labels: { component: name, tier: "control-plane" },
    },
    spec: {
      hostNetwork: true,
      priorityClassName: "system-node-critical",
      containers: [
        {
          name,
          image,
          imagePullPolicy: "IfNotPresent",
          args,
          resources: { requests: { cpu: "50m", memory: "32Mi" } },
        },
      ],
    },
  };
}

export const demoPodList = {
  apiVersion: "v1",
  kind: "PodList",
  items: [
    staticPod("haproxy", "docker.io/library/haproxy:3.0-alpine", [
      "-f",
      "/usr/local/etc/haproxy/haproxy.cfg",
    ]),
    staticPod("keepalived", "docker.io/osixia/keepalived:2.0.20", ["--loglevel", "info"]),
  ],
};
