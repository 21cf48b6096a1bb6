// Shared by the server and CLI tests: a controllable manifest URL on 127.0.0.1, and an exporter
// started from real command-line flags.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { type Exporter, startExporter } from "../../src/app.js";
import { resolveConfig } from "../../src/cli/config.js";
import type { Clock, Logger } from "../../src/core/deps.js";
import { silentLogger } from "../../src/core/deps.js";

/** A manifest URL whose answer the test sets: a status code, or a PodList once it "recovers". */
export class ManifestServer {
  status = 404;
  body = "";
  requests = 0;
  private constructor(private readonly server: Server) {}

  static async start(): Promise<ManifestServer> {
    let self: ManifestServer | undefined;
    const server = createServer((_request, response) => {
      if (!self) return;
      self.requests++;
      response.writeHead(self.status, { "content-type": "application/json" }).end(self.body);
    });
    self = new ManifestServer(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/pods`;
  }

  /** From now on: 200 with a PodList of one pod named `name`. */
  serve(name: string): void {
    this.body = JSON.stringify({
      apiVersion: "v1",
      kind: "PodList",
      items: [
        {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name, namespace: "kube-system" },
          spec: { containers: [{ name, image: `registry.k8s.io/${name}:v1` }] },
        },
      ],
    });
    this.status = 200;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** A static pod manifest directory holding one pod, removed by the returned cleanup. */
export async function manifestDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "podconfig-server-"));
  await writeFile(
    join(path, "etcd.yaml"),
    [
      "apiVersion: v1",
      "kind: Pod",
      "metadata: {name: etcd, namespace: kube-system}",
      "spec:",
      "  containers: [{name: etcd, image: 'registry.k8s.io/etcd:3.5.21-0'}]",
      "",
    ].join("\n"),
  );
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** The exporter as the CLI would start it from these flags, on a free loopback port. */
export async function exporterFromFlags(
  flags: string[],
  logger: Logger = silentLogger,
  clock?: Clock,
): Promise<Exporter> {
  // Defaults the caller's flags may replace: a flag given twice is refused.
  const defaults = ["--web.listen-address=127.0.0.1:0", "--node-name=test-node"].filter(
    (flag) => !flags.some((given) => given.startsWith(flag.slice(0, flag.indexOf("=") + 1))),
  );
  const command = await resolveConfig([...defaults, ...flags], {});
  if (command.kind !== "run") throw new Error(`flags ${flags.join(" ")} do not run the exporter`);
  return startExporter(command.config, {
    logger,
    build: { version: "test", revision: "test" },
    ...(clock ? { clock } : {}),
  });
}

/**
 * An exporter with a file source (one pod) and an http source stuck on a 404 until
 * `manifests.serve()`, polled every 300 ms; everything is cleaned up after the test.
 */
export async function fileAndStuckHTTP(
  t: TestContext,
  flags: string[] = [],
): Promise<{ manifests: ManifestServer; exporter: Exporter }> {
  const manifests = await ManifestServer.start();
  t.after(() => manifests.close());
  const dir = await manifestDir();
  t.after(() => dir.remove());
  const exporter = await exporterFromFlags([
    `--pod-manifest-path=${dir.path}`,
    `--manifest-url=${manifests.url}`,
    "--http-check-frequency=300ms",
    ...flags,
  ]);
  t.after(() => exporter.stop());
  return { manifests, exporter };
}
