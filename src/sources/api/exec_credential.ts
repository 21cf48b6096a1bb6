// An exec credential plugin run as client-go's exec authenticator runs it (1.32,
// plugin/pkg/client/auth/exec): KUBERNETES_EXEC_INFO in its environment, stdin not connected
// (a daemon is never interactive), stderr passed through, stdout an ExecCredential whose token or
// client certificate is cached until status.expirationTimestamp. Errors never quote the output.
import { spawn } from "node:child_process";
import type { Clock } from "../../core/deps.js";
import type { Cluster, ExecConfig } from "./kubeconfig_file.js";

/** What a plugin hands back: a bearer token, or a client certificate and key (PEM). */
export interface ExecCredentials {
  token?: string;
  cert?: string;
  key?: string;
}

/** A plugin that does not exit by then is killed: a hung plugin would hang every request. */
const pluginTimeoutMs = 60_000;
const maxOutputBytes = 1 << 20;

export class ExecCredentialPlugin {
  private cached: { credentials: ExecCredentials; expiresAt: number } | undefined;
  /** One run at a time: concurrent requests share it. */
  private running: Promise<ExecCredentials> | undefined;

  constructor(
    private readonly exec: ExecConfig,
    private readonly cluster: Cluster,
    private readonly clock: Clock,
  ) {}

  /** The cached credentials while unexpired, else those of a fresh run of the plugin. */
  async credentials(): Promise<ExecCredentials> {
    if (this.cached && this.clock.now() < this.cached.expiresAt) return this.cached.credentials;
    this.running ??= this.refresh().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async refresh(): Promise<ExecCredentials> {
    if (this.exec.interactiveMode === "Always") {
      throw new Error(
        "exec plugin: interactiveMode Always needs a terminal, which a daemon has not",
      );
    }
    const output = await this.run();
    const { credentials, expiresAt } = parseExecCredential(output, this.exec.apiVersion);
    this.cached = { credentials, expiresAt };
    return credentials;
  }

  private run(): Promise<string> {
    const { command, args, env } = this.exec;
    const child = spawn(command, args, {
      env: {
        ...process.env,
        ...Object.fromEntries(env.map((e) => [e.name, e.value])),
        KUBERNETES_EXEC_INFO: this.execInfo(),
      },
      stdio: ["ignore", "pipe", "inherit"],
      timeout: pluginTimeoutMs,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutputBytes) child.kill();
      else chunks.push(chunk);
    });
    return new Promise((resolve, reject) => {
      child.once("error", (err: NodeJS.ErrnoException) => {
        const hint =
          err.code === "ENOENT" && this.exec.installHint ? `: ${this.exec.installHint}` : "";
        reject(new Error(`exec plugin ${command} cannot be run (${err.code ?? "error"})${hint}`));
      });
      child.once("close", (code, signal) => {
        if (code === 0 && size <= maxOutputBytes)
          return resolve(Buffer.concat(chunks).toString("utf8"));
        const why =
          size > maxOutputBytes
            ? `printed more than ${maxOutputBytes} bytes`
            : signal
              ? `was killed by ${signal}${signal === "SIGTERM" ? ` (no answer within ${pluginTimeoutMs / 1000} s?)` : ""}`
              : `exited with code ${code}`;
        reject(new Error(`exec plugin ${command} ${why}`));
      });
    });
  }

  /** The ExecCredential the plugin gets in KUBERNETES_EXEC_INFO. */
  private execInfo(): string {
    const spec: Record<string, unknown> = { interactive: false };
    if (this.exec.provideClusterInfo) {
      const { server, tlsServerName, skipTLSVerify, caData } = this.cluster;
      spec.cluster = {
        server,
        "tls-server-name": tlsServerName,
        "insecure-skip-tls-verify": skipTLSVerify,
        "certificate-authority-data": caData && Buffer.from(caData).toString("base64"),
      };
    }
    return JSON.stringify({ apiVersion: this.exec.apiVersion, kind: "ExecCredential", spec });
  }
}

/** Validates a plugin's stdout as client-go does; no message quotes it. */
export function parseExecCredential(
  output: string,
  apiVersion: string,
): { credentials: ExecCredentials; expiresAt: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    // JSON.parse's message quotes the text: the token.
    throw new Error("exec plugin: the credential plugin's output is not JSON (not shown)");
  }
  const cred = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<
    string,
    unknown
  >;
  if (cred.kind !== "ExecCredential")
    throw new Error("exec plugin: output is not an ExecCredential");
  if (cred.apiVersion !== apiVersion) {
    throw new Error(`exec plugin: configured for ${apiVersion}, returned another apiVersion`);
  }
  const status = cred.status as Record<string, unknown> | undefined;
  if (typeof status !== "object" || status === null)
    throw new Error("exec plugin: returned no status");
  const text = (key: string) =>
    typeof status[key] === "string" && status[key] !== "" ? (status[key] as string) : undefined;
  const credentials: ExecCredentials = {
    token: text("token"),
    cert: text("clientCertificateData"),
    key: text("clientKeyData"),
  };
  if ((credentials.cert === undefined) !== (credentials.key === undefined)) {
    throw new Error("exec plugin: returned only a certificate or a key, not both");
  }
  if (credentials.token === undefined && credentials.cert === undefined) {
    throw new Error("exec plugin: returned neither a token nor a certificate and key");
  }
  const expiration = text("expirationTimestamp");
  const expiresAt = expiration === undefined ? Number.POSITIVE_INFINITY : Date.parse(expiration);
  if (Number.isNaN(expiresAt)) throw new Error("exec plugin: expirationTimestamp is not a time");
  return { credentials, expiresAt };
}
