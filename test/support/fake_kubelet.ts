// A fake kubelet on 127.0.0.1: /metrics over TLS with a serving certificate signed by a CA made
// for the test (openssl), a bearer token check, and an exposition in the kubelet's own shape
// (src/demo/kubelet_exposition.ts) whose state the test drives: restarts, PLEG going stale,
// the runtime failing, housekeeping series appearing, or answers that are not metrics at all.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KubeletMetricsState,
  renderKubeletMetrics,
} from "../../src/demo/kubelet_exposition.js";
import { kubeletSelfSigned, selfSigned, signed } from "./certs.js";

export interface TestPKI {
  dir: string;
  caFile: string;
  /** A CA that did not sign the server's certificate. */
  otherCAFile: string;
  key: string;
  cert: string;
  remove(): Promise<void>;
}

/**
 * A CA and a serving certificate signed by it, made now with openssl: for 127.0.0.1, or for
 * `serverSan` (DNS:node-1, as the kubelet's self-signed kubelet.crt names only its hostname).
 */
export async function makeTestPKI({ serverSan = "IP:127.0.0.1" } = {}): Promise<TestPKI> {
  const dir = await mkdtemp(join(tmpdir(), "fake-kubelet-pki-"));
  const ca = selfSigned(dir, "ca");
  const other = selfSigned(dir, "other-ca");
  const server = signed(dir, "ca", "server", serverSan);
  return {
    dir,
    caFile: ca.certFile,
    otherCAFile: other.certFile,
    key: server.key,
    cert: server.cert,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A kubeadm node's kubelet without serverTLSBootstrap: it serves its own kubelet.crt (a CA of
 * its own and a certificate naming only DNS:`hostname`, both in the file). `caFile` is that
 * kubelet.crt, what a pod mounts from /var/lib/kubelet/pki; `otherCAFile` is a cluster CA, which
 * did not sign it.
 */
export async function makeKubeadmKubeletPKI(hostname: string): Promise<TestPKI> {
  const dir = await mkdtemp(join(tmpdir(), "fake-kubelet-kubeadm-"));
  const clusterCA = selfSigned(dir, "cluster-ca");
  const kubelet = kubeletSelfSigned(dir, hostname);
  return {
    dir,
    caFile: kubelet.certFile,
    otherCAFile: clusterCA.certFile,
    key: kubelet.key,
    cert: kubelet.cert,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export type FakeKubeletAnswer =
  | { kind: "metrics" }
  | { kind: "status"; status: number }
  | { kind: "body"; body: string }
  /** Accepts the request and never answers. */
  | { kind: "hang" };

export class FakeKubelet {
  state: KubeletMetricsState;
  answer: FakeKubeletAnswer = { kind: "metrics" };
  /**
   * Live, the kubelet works between two requests: PLEG relists (last seen is now, unless
   * plegStale) and the runtime's Status is called once (and fails if runtimeFailing). Not live,
   * the state changes only when the test changes it (tests on a manual clock).
   */
  live = false;
  plegStale = false;
  runtimeFailing = false;
  /** The bearer token accepted; any other gets 401. */
  token = "kubelet-test-token";
  /** Tokens presented, in order. */
  readonly tokensSeen: string[] = [];
  private constructor(
    private readonly server: Server,
    now: number,
  ) {
    this.state = {
      version: "v1.32.4",
      startTimeSeconds: Math.floor(now / 1000) - 60,
      plegLastSeenSeconds: Math.floor(now / 1000),
      plegRelist: { count: 60, sumSeconds: 0.6 },
      runtimeStatus: { total: 12, errors: 0 },
      eventedPLEG: false,
      housekeeping: { desiredStatic: 1, desiredNonStatic: 0 },
    };
  }

  static async start(pki: TestPKI, now = Date.now()): Promise<FakeKubelet> {
    let self: FakeKubelet | undefined;
    const server = createServer({ key: pki.key, cert: pki.cert }, (request, response) => {
      if (!self) return;
      const auth = request.headers.authorization ?? "";
      self.tokensSeen.push(auth.replace(/^Bearer /, ""));
      if (request.url !== "/metrics") {
        response.writeHead(404).end();
        return;
      }
      if (auth !== `Bearer ${self.token}`) {
        response.writeHead(401, { "content-type": "text/plain" }).end("Unauthorized\n");
        return;
      }
      const answer = self.answer;
      if (answer.kind === "hang") return;
      if (answer.kind === "status") {
        response.writeHead(answer.status, { "content-type": "text/plain" }).end("no\n");
        return;
      }
      if (self.live) self.work();
      const body = answer.kind === "body" ? answer.body : renderKubeletMetrics(self.state);
      response.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(body);
    });
    self = new FakeKubelet(server, now);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return self;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/metrics`;
  }

  private work(): void {
    const { plegRelist, runtimeStatus } = this.state;
    this.state = {
      ...this.state,
      plegLastSeenSeconds: this.plegStale
        ? this.state.plegLastSeenSeconds
        : Math.floor(Date.now() / 1000),
      plegRelist: this.plegStale
        ? plegRelist
        : { count: plegRelist.count + 1, sumSeconds: plegRelist.sumSeconds + 0.01 },
      runtimeStatus: {
        total: runtimeStatus.total + 1,
        errors: runtimeStatus.errors + (this.runtimeFailing ? 1 : 0),
      },
    };
  }

  /** The kubelet process restarts at `atSeconds`: no housekeeping yet, PLEG not relisted. */
  restart(atSeconds: number): void {
    this.state = {
      ...this.state,
      startTimeSeconds: atSeconds,
      plegLastSeenSeconds: 0,
      plegRelist: { count: 0, sumSeconds: 0 },
      runtimeStatus: { total: 0, errors: 0 },
      housekeeping: undefined,
    };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** An exporter's flags for the cross-check with `kubelet` (its token in a file), polled every 20 ms. */
export async function crossCheckFlags(kubelet: FakeKubelet, pki: TestPKI): Promise<string[]> {
  const tokenFile = join(pki.dir, `token-${Math.random()}`);
  await writeFile(tokenFile, kubelet.token);
  return [
    `--kubelet.url=${kubelet.url}`,
    `--kubelet.ca-file=${pki.caFile}`,
    `--kubelet.token-file=${tokenFile}`,
    "--kubelet.poll-period=20ms",
    "--sync-loop.housekeeping-period=20ms",
  ];
}
