// Another kube-apiserver of the real node's release (run by npm run e2e:node, which sets the
// REALNODE_* variables) on the node's etcd, with flags of the test's own: no watch cache, an
// egress selector, a separate etcd prefix (a cluster of its own on the same etcd). The requests
// of the users it audits are in its audit log, which says what a client did.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export const realNodeEnv = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set: run this through npm run e2e:node`);
  return value;
};

/** A request of an audited user, as the audit log has it. */
export interface AuditedRequest {
  user: string;
  verb: string;
  resource: string;
  subresource: string | undefined;
  apiGroup: string;
  query: URLSearchParams;
  code: number | undefined;
}

export class ExtraApiserver {
  private child: ChildProcess | undefined;
  readonly auditLog: string;
  private readonly binary = realNodeEnv("REALNODE_APISERVER");
  private readonly baseArgs = JSON.parse(realNodeEnv("REALNODE_APISERVER_ARGS")) as string[];

  constructor(
    readonly port: number,
    private readonly options: {
      /** Where its audit policy and log go. */
      workDir: string;
      /** Flags beyond the node's own API server's. */
      args: readonly string[];
      /** Whose requests are audited (Metadata level). */
      auditedUsers: readonly string[];
    },
  ) {
    this.auditLog = join(options.workDir, `audit-${port}.log`);
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Starts it and waits (bounded) for /readyz, as the admin of `kubeconfig`. */
  async start(adminKubeconfig: string, boundMs = 180_000): Promise<void> {
    const policy = join(this.options.workDir, `audit-policy-${this.port}.yaml`);
    const users = this.options.auditedUsers.map((u) => JSON.stringify(u)).join(", ");
    writeFileSync(
      policy,
      `apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: ["RequestReceived"]\nrules:\n- level: Metadata\n  users: [${users}]\n- level: None\n`,
    );
    const args = this.baseArgs
      .filter((a) => !a.startsWith("--secure-port="))
      .concat([
        `--secure-port=${this.port}`,
        `--audit-policy-file=${policy}`,
        `--audit-log-path=${this.auditLog}`,
        "--audit-log-mode=blocking",
        ...this.options.args,
      ]);
    this.child = spawn(this.binary, args, { stdio: ["ignore", "ignore", "ignore"] });
    const deadline = Date.now() + boundMs;
    for (;;) {
      try {
        // Not execFileSync: the clients under test run in this process, and a loop blocked for
        // seconds at a time would fail their own deadlines (a credentials file read's 10 s).
        await execFileAsync(
          "kubectl",
          [`--kubeconfig=${adminKubeconfig}`, `--server=${this.url}`, "get", "--raw=/readyz"],
          { timeout: 10_000 },
        );
        return;
      } catch {
        if (this.child.exitCode !== null)
          throw new Error(`the extra kube-apiserver exited ${this.child.exitCode}`);
        if (Date.now() > deadline) throw new Error("the extra kube-apiserver never became ready");
        await sleep(500);
      }
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, sleep(30_000).then(() => child.kill("SIGKILL"))]);
    await exited;
  }

  /** The audited requests, in order, each once (the log has ResponseStarted and ResponseComplete). */
  requests(): AuditedRequest[] {
    let text = "";
    try {
      text = readFileSync(this.auditLog, "utf8");
    } catch {
      return [];
    }
    const seen = new Set<string>();
    const requests: AuditedRequest[] = [];
    for (const line of text.split("\n").filter(Boolean)) {
      const event = JSON.parse(line) as {
        auditID: string;
        stage: string;
        verb: string;
        requestURI: string;
        user: { username: string };
        objectRef?: { resource?: string; subresource?: string; apiGroup?: string };
        responseStatus?: { code?: number };
      };
      if (seen.has(event.auditID)) continue;
      seen.add(event.auditID);
      requests.push({
        user: event.user.username,
        verb: event.verb,
        resource: event.objectRef?.resource ?? "",
        subresource: event.objectRef?.subresource,
        apiGroup: event.objectRef?.apiGroup ?? "",
        query: new URL(event.requestURI, "https://x").searchParams,
        code: event.responseStatus?.code,
      });
    }
    return requests;
  }
}
