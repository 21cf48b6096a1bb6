// An exec credential plugin run as client-go's exec authenticator runs it (1.32,
// plugin/pkg/client/auth/exec): KUBERNETES_EXEC_INFO in its environment, stdin not connected
// (a daemon is never interactive), stderr passed through, stdout an ExecCredential whose token or
// client certificate is cached until status.expirationTimestamp. Errors never quote the output.
//
// Where client-go can hang for good, this does not: client-go waits for the plugin without a
// deadline, and for its stdout to close (a child the plugin left behind may hold it forever).
// Here the plugin runs in a process group of its own, which is killed whole (SIGKILL: a plugin
// may ignore SIGTERM) at the deadline, when the plugin has exited but its stdout is still held,
// when the source asking for it stops (so SIGTERM never waits for a plugin), and when the
// exporter exits. Its stderr is passed through up to a bound.
import { type ChildProcess, spawn } from "node:child_process";
import type { Clock } from "../../core/deps.js";
import type { Cluster, ExecConfig } from "./kubeconfig_file.js";

/** What a plugin hands back: a bearer token, or a client certificate and key (PEM). */
export interface ExecCredentials {
  token?: string;
  cert?: string;
  key?: string;
}

/**
 * A plugin that does not exit by then is killed: a hung plugin would hang every request. Real
 * plugins (aws eks get-token, gke-gcloud-auth-plugin) answer within seconds, a cold one with a
 * network round trip included.
 */
export const PluginTimeoutMs = 30_000;
/** An ExecCredential is a token or a certificate and key: a few KiB. */
const maxOutputBytes = 1 << 20;
/** Plugin stderr passed through per run: its messages, not a flood in our log. */
export const MaxPluginStderrBytes = 64 * 1024;
/** After the plugin exits, how long what it wrote may take to be read before its group goes. */
const exitDrainMs = 1000;

/** Process groups of running plugins: killed with the exporter, which they must not outlive. */
const runningGroups = new Set<number>();
process.once("exit", () => {
  for (const pgid of runningGroups) killGroup(pgid);
});

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

export class ExecCredentialPlugin {
  private cached: { credentials: ExecCredentials; expiresAt: number } | undefined;
  /** One run at a time: concurrent requests share it. */
  private running: Promise<ExecCredentials> | undefined;

  constructor(
    private readonly exec: ExecConfig,
    private readonly cluster: Cluster,
    private readonly clock: Clock,
    private readonly timeoutMs: number = PluginTimeoutMs,
  ) {}

  /**
   * The cached credentials while unexpired, else those of a fresh run of the plugin. When
   * `signal` aborts (the source stops), the run is killed with its process group: every
   * request sharing it belongs to the same source.
   */
  async credentials(signal?: AbortSignal): Promise<ExecCredentials> {
    if (this.cached && this.clock.now() < this.cached.expiresAt) return this.cached.credentials;
    if (signal?.aborted) throw new Error("exec plugin: not run, the source is stopping");
    this.running ??= this.refresh(signal).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async refresh(signal: AbortSignal | undefined): Promise<ExecCredentials> {
    if (this.exec.interactiveMode === "Always") {
      throw new Error(
        "exec plugin: interactiveMode Always needs a terminal, which a daemon has not",
      );
    }
    const output = await this.run(signal);
    const { credentials, expiresAt } = parseExecCredential(output, this.exec.apiVersion);
    this.cached = { credentials, expiresAt };
    return credentials;
  }

  private run(signal: AbortSignal | undefined): Promise<string> {
    const { command, args, env } = this.exec;
    const child = spawn(command, args, {
      env: {
        ...process.env,
        ...Object.fromEntries(env.map((e) => [e.name, e.value])),
        KUBERNETES_EXEC_INFO: this.execInfo(),
      },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so that it and whatever it started can be killed together.
      detached: true,
    });
    return new Promise((resolve, reject) => {
      const stdout: Buffer[] = [];
      let size = 0;
      let why: string | undefined;
      const pgid = child.pid;
      if (pgid !== undefined) runningGroups.add(pgid);
      /** Kills the group and stops reading; `reason`: the run failed. */
      const end = (reason?: string): void => {
        why ??= reason;
        if (pgid !== undefined) killGroup(pgid);
        child.stdout?.destroy();
        child.stderr?.destroy();
      };
      const deadline = setTimeout(
        () =>
          end(`did not answer within ${this.timeoutMs} ms and was killed with its process group`),
        this.timeoutMs,
      );
      const onAbort = () => end("was killed with its process group: the source is stopping");
      signal?.addEventListener("abort", onAbort, { once: true });
      let drain: NodeJS.Timeout | undefined;
      child.stdout?.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxOutputBytes) end(`printed more than ${maxOutputBytes} bytes`);
        else stdout.push(chunk);
      });
      passStderr(child, command);
      child.once("error", (err: NodeJS.ErrnoException) => {
        clearTimeout(deadline);
        signal?.removeEventListener("abort", onAbort);
        if (pgid !== undefined) runningGroups.delete(pgid);
        const hint =
          err.code === "ENOENT" && this.exec.installHint ? `: ${this.exec.installHint}` : "";
        reject(new Error(`exec plugin ${command} cannot be run (${err.code ?? "error"})${hint}`));
      });
      // The plugin exited: what it wrote is read, even while a process it started holds its
      // stdout open (that one is killed, and the plugin's own answer counts).
      child.once("exit", () => {
        drain = setTimeout(() => end(), exitDrainMs);
      });
      child.once("close", (code, killedBy) => {
        clearTimeout(deadline);
        clearTimeout(drain);
        signal?.removeEventListener("abort", onAbort);
        if (pgid !== undefined) {
          // Whatever the plugin left running goes with it.
          killGroup(pgid);
          runningGroups.delete(pgid);
        }
        if (why === undefined && code === 0) return resolve(Buffer.concat(stdout).toString("utf8"));
        const detail =
          why ?? (killedBy ? `was killed by ${killedBy}` : `exited with code ${code ?? "unknown"}`);
        reject(new Error(`exec plugin ${command} ${detail}`));
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

/** client-go passes the plugin's stderr through; here at most MaxPluginStderrBytes of it a run. */
function passStderr(child: ChildProcess, command: string): void {
  let written = 0;
  let dropped = 0;
  child.stderr?.on("data", (chunk: Buffer) => {
    const room = MaxPluginStderrBytes - written;
    if (room > 0) process.stderr.write(chunk.subarray(0, room));
    written += Math.min(room, chunk.length);
    dropped += Math.max(0, chunk.length - Math.max(room, 0));
  });
  child.stderr?.once("close", () => {
    if (dropped > 0)
      process.stderr.write(
        `\nexec plugin ${command}: ${dropped} more bytes of stderr dropped (the ${MaxPluginStderrBytes}-byte stderr bound)\n`,
      );
  });
}
