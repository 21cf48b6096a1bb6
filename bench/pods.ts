// Realistic pods for benchmarks: a kubeadm-like static pod (~2 KiB of JSON) with status.
import type { Pod } from "../src/core/types.js";

export function benchPod(i: number): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `workload-${i}`,
      namespace: `ns-${i % 7}`,
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      labels: { app: `app-${i % 13}`, tier: "backend", "pod-template-hash": "7d9c6b8f5" },
      annotations: { "kubernetes.io/config.hash": `hash-${i}`, "prometheus.io/scrape": "true" },
      resourceVersion: String(1000 + i),
    },
    spec: {
      nodeName: "node-1",
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      priorityClassName: "system-node-critical",
      containers: [
        {
          name: "main",
          image: "registry.k8s.io/example/server:v1.2.3",
          command: ["/server", "--port=8080", "--log-level=info", `--id=${i}`],
          env: [
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "MODE", value: "production" },
          ],
          ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } },
          livenessProbe: {
            httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" },
            initialDelaySeconds: 10,
            periodSeconds: 10,
            failureThreshold: 8,
          },
          volumeMounts: [
            { name: "config", mountPath: "/etc/server", readOnly: true },
            { name: "data", mountPath: "/var/lib/server" },
          ],
          terminationMessagePolicy: "File",
          imagePullPolicy: "IfNotPresent",
        },
      ],
      volumes: [
        { name: "config", hostPath: { path: "/etc/server", type: "DirectoryOrCreate" } },
        { name: "data", hostPath: { path: "/var/lib/server", type: "DirectoryOrCreate" } },
      ],
      tolerations: [{ operator: "Exists", effect: "NoExecute" }],
    },
    status: {
      phase: "Running",
      conditions: [
        { type: "Ready", status: "True", lastTransitionTime: "2026-11-30T00:00:00Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2026-11-30T00:00:00Z" },
      ],
      hostIP: "10.0.0.1",
      podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
      startTime: "2026-11-30T00:00:00Z",
    },
  };
}
