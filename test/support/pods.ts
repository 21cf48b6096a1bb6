// Pod builders and a controllable clock shared by the test suites.
import type { Clock } from "../../src/core/deps.js";
import type { Pod } from "../../src/core/types.js";

/** The kubelet test's CreateValidPod: UID is name + namespace, "unique enough". */
export function createValidPod(name: string, namespace: string): Pod {
  return {
    metadata: { uid: name + namespace, name, namespace },
    spec: {
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      containers: [
        {
          name: "ctr",
          image: "image",
          imagePullPolicy: "IfNotPresent",
          securityContext: { privileged: false },
          terminationMessagePolicy: "File",
        },
      ],
    },
  };
}

export function withContainers(pod: Pod, containers: unknown[]): Pod {
  return { ...pod, spec: { ...pod.spec, containers } };
}

export const otherContainer = {
  name: "bar",
  image: "test",
  imagePullPolicy: "IfNotPresent",
  terminationMessagePolicy: "File",
};

/** A static pod manifest as a manifest server would serve it: one busybox container. */
export const manifestPodJson = (name: string): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "app", image: "busybox" }] },
  });

/** A clock that moves only when told. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** A mirror pod as the kubelet creates it for a static pod of `source` on node test-node. */
export function mirrorPod(name: string, source: string, uid = `mirror-${name}`): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "kube-system",
      uid,
      annotations: {
        "kubernetes.io/config.hash": "abc",
        "kubernetes.io/config.mirror": "abc",
        "kubernetes.io/config.source": source,
      },
    },
    spec: { nodeName: "test-node", containers: [{ name: "c", image: "i" }] },
  };
}
