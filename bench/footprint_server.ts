// The servers side of bench/footprint, in its own process so their memory is not billed to the
// exporter: the fake apiserver over HTTPS with a bearer token (node-1 and its pods), and a
// manifest URL serving one of examples/manifests, and a kubelet for the cross-check (its /metrics
// over TLS, a serving certificate for 127.0.0.1 from a CA of its own, a bearer token; live: it
// relists and counts between polls). Prints {kubeconfig, manifestUrl, kubelet} as JSON.
// With BENCH_CHURN_RATE, writes that many pod status updates a second (round-robin, a share
// every 10 ms), as bench/churn does, for the exporter's memory under churn.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../src/core/types.js";
import { FakeApiserver } from "../test/support/fake_apiserver.js";
import { FakeKubelet, makeTestPKI } from "../test/support/fake_kubelet.js";
import { benchPod } from "./pods.js";

const pods = Number(process.env.BENCH_PODS ?? 30);
const fake = await FakeApiserver.start({ tls: true, token: "bench-token" });
const stored: Pod[] = [];
for (let i = 0; i < pods; i++) stored.push(fake.addPod(benchPod(i)));
const rate = Number(process.env.BENCH_CHURN_RATE ?? 0);
if (rate > 0) {
  const start = Date.now();
  let written = 0;
  setInterval(() => {
    const due = Math.floor(((Date.now() - start) / 1000) * rate);
    for (; written < due; written += 1) {
      const pod = stored[written % pods] as Pod;
      const status = { ...(pod.status ?? {}), message: String(written) };
      stored[written % pods] = fake.modifyPod({ ...pod, status });
    }
  }, 10);
}
const dir = await mkdtemp(join(tmpdir(), "bench-footprint-"));
const kubeconfig = await fake.writeKubeconfig(dir, "bench-token");
const pki = await makeTestPKI();
const kubeletServer = await FakeKubelet.start(pki);
kubeletServer.live = true;
const tokenFile = join(dir, "kubelet-token");
await writeFile(tokenFile, kubeletServer.token);
const kubelet = { url: kubeletServer.url, caFile: pki.caFile, tokenFile };
const manifest = await readFile(new URL("../examples/manifests/etcd.yaml", import.meta.url));
const server = createServer((_request, response) => response.end(manifest));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const manifestUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/etcd.yaml`;
console.log(JSON.stringify({ kubeconfig, manifestUrl, kubelet }));
process.on("SIGTERM", async () => {
  server.close();
  await kubeletServer.close();
  await pki.remove();
  await fake.close();
  process.exit(0);
});
