// A loopback Kubernetes API server that speaks the pods list/watch protocol the way the real
// one does, so the api source is tested against the wire format rather than a mock of itself:
// - GET /api/v1/pods?fieldSelector=spec.nodeName=<node>  -> PodList with metadata.resourceVersion;
//   items carry no kind/apiVersion, as in a real list.
// - the same with watch=1&resourceVersion=<rv>  -> a chunked stream of JSON lines
//   {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":...} replaying the history after rv,
//   then live events. A pod that starts or stops matching the field selector arrives as ADDED or
//   DELETED, as the API server's filtered watch does.
// - a resourceVersion older than the compacted window -> 410 Gone "Expired": by default as an
//   ERROR event inside a 200 stream (what the watch cache does), optionally as the HTTP status.
// - GET /api/v1/nodes?fieldSelector=metadata.name=<node>  -> NodeList (what the kubelet's node
//   informer lists before its api source may start), holding the node asked for: every node
//   exists here, as a registered kubelet's does, unless named in `absentNodes` (a kubelet that
//   has not registered yet: its list is empty). The real kube-apiserver's absent Node is tested
//   in test/realnode/.
// Test controls: add/modify/delete pods (one monotonic resourceVersion), close
// watches, compact, bookmark, go down (refuse connections) and come back up on the same port.
// Hostile modes (`hostile`, changeable at any time) make it the API server nobody wants: lists
// that never answer or trickle, garbage, watches that close after one event, 410 on every watch.
import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Pod } from "../../src/core/types.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface FakeApiserverOptions {
  /** When set, every request must carry `Authorization: Bearer <token>` (else 401). */
  token?: string;
  /** How a too-old watch resourceVersion is answered; default "event". */
  expiredAs?: "event" | "status";
  /** Serve HTTPS with a fixed self-signed certificate, trusted by the kubeconfig it writes. */
  tls?: boolean;
  /** With tls: every client must present a certificate signed by this CA (PEM). */
  clientCA?: string;
}

/**
 * A self-signed certificate for 127.0.0.1, valid 2000–2100, used only by this test server;
 * the key protects nothing. (openssl ca -selfsign, EC P-256, CA:TRUE, SAN IP:127.0.0.1)
 */
const testKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgpc2KQzZfWiyAoY4g
mwUxwV1FvnVbzbKAvlQXysxV1x+hRANCAARua4YEoQ8tqZ0NQwolUxv4SiZQ42YB
/8CEsSoII4vrDtOAwU6dvd3HsA0fHM+ngqJPD2Q03lkeJBSvU2maCX9a
-----END PRIVATE KEY-----`;
const testCert = `-----BEGIN CERTIFICATE-----
MIIBZTCCAQygAwIBAgIBATAKBggqhkjOPQQDAjAZMRcwFQYDVQQDDA5mYWtlLWFw
aXNlcnZlcjAgFw0wMDAxMDEwMDAwMDBaGA8yMTAwMDEwMTAwMDAwMFowGTEXMBUG
A1UEAwwOZmFrZS1hcGlzZXJ2ZXIwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARu
a4YEoQ8tqZ0NQwolUxv4SiZQ42YB/8CEsSoII4vrDtOAwU6dvd3HsA0fHM+ngqJP
D2Q03lkeJBSvU2maCX9ao0MwQTAPBgNVHREECDAGhwR/AAABMA8GA1UdEwEB/wQF
MAMBAf8wHQYDVR0OBBYEFKTC8sv/vifVS949DD6it9iu0AyjMAoGCCqGSM49BAMC
A0cAMEQCIHmJ0yFBjhEnCGxn3IkavKUG++F1LodRsLYf6ifIlEsBAiA+3XWY2EKR
ocOQBWw60YWUwhptW6UKgiUwEBuMi09Slw==
-----END CERTIFICATE-----`;

/** Misbehaviours, each applying to every request of its kind while set. */
export interface HostileModes {
  /** Pod and node lists are accepted and never answered (the connection stays open). */
  listNeverAnswers?: boolean;
  /** Pod lists answer with bytes that are not JSON. */
  listGarbage?: boolean;
  /** Pod list bodies are written 64 bytes at a time, one write per this many ms. */
  slowListMs?: number;
  /** Node lists are refused with 403, as for a service account without `list nodes`. */
  forbidNodes?: boolean;
  /** What every watch gets instead of the real stream. */
  watch?: "one-event-then-close" | "gone" | "garbage" | "close-at-once";
}

/** What the server was asked, for assertions (no header values are kept). */
export interface RecordedRequest {
  kind: "list" | "watch" | "nodes";
  resourceVersion: string | undefined;
  fieldSelector: string | undefined;
  allowWatchBookmarks: boolean;
}

interface HistoryEvent {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: Pod;
  /** The object before the change, to turn a selector transition into ADDED/DELETED. */
  previous: Pod | undefined;
}

interface Watcher {
  res: ServerResponse;
  matches: (pod: Pod) => boolean;
  bookmarks: boolean;
  timer: NodeJS.Timeout | undefined;
}

const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;

export class FakeApiserver {
  readonly requests: RecordedRequest[] = [];
  /** Nodes not created yet: a node list selecting one of them is empty. */
  readonly absentNodes = new Set<string>();
  hostile: HostileModes = {};
  private readonly server: Server;
  private readonly pods = new Map<string, Pod>();
  private readonly history: HistoryEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private rv = 1;
  /** Watches from a resourceVersion below this one get 410 Gone. */
  private compactedRv = 0;
  private port = 0;
  private isUp = false;
  /** The Authorization header every request must carry, when set. */
  private authorization: string | undefined;

  private constructor(private readonly options: FakeApiserverOptions) {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.serve(req, res);
    this.authorization = options.token === undefined ? undefined : `Bearer ${options.token}`;
    const clientAuth = options.clientCA
      ? { ca: options.clientCA, requestCert: true, rejectUnauthorized: true }
      : {};
    this.server = options.tls
      ? createTlsServer({ key: testKey, cert: testCert, ...clientAuth }, handler)
      : createServer(handler);
  }

  static async start(options: FakeApiserverOptions = {}): Promise<FakeApiserver> {
    const fake = new FakeApiserver(options);
    await fake.up();
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  /** From now on, every request must carry this Authorization header (undefined: none). */
  requireAuthorization(header: string | undefined): void {
    this.authorization = header;
  }

  /** The PEM certificate an HTTPS server presents (self-signed: its own CA). */
  get certificate(): string {
    return testCert;
  }

  get url(): string {
    return `${this.options.tls ? "https" : "http"}://127.0.0.1:${this.port}`;
  }

  /** The current resourceVersion (of the latest change). */
  get resourceVersion(): string {
    return String(this.rv);
  }

  get activeWatches(): number {
    return this.watchers.size;
  }

  requestsOf(kind: RecordedRequest["kind"]): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === kind);
  }

  /** Creates a pod (namespace defaults to "default", uid generated if absent). */
  addPod(pod: Pod): Pod {
    const namespace = pod.metadata.namespace ?? "default";
    const key = podKey(namespace, pod.metadata.name ?? "");
    if (this.pods.has(key)) throw new Error(`fake apiserver: pod ${key} already exists`);
    const uid = pod.metadata.uid ?? randomUUID();
    return this.record("ADDED", key, { ...pod, metadata: { ...pod.metadata, namespace, uid } });
  }

  /** Replaces an existing pod (matched by namespace/name; uid kept). */
  modifyPod(pod: Pod): Pod {
    const key = podKey(pod.metadata.namespace ?? "default", pod.metadata.name ?? "");
    const old = this.mustGet(key);
    return this.record("MODIFIED", key, {
      ...pod,
      metadata: { ...pod.metadata, namespace: old.metadata.namespace, uid: old.metadata.uid },
    });
  }

  deletePod(namespace: string, name: string): Pod {
    const key = podKey(namespace, name);
    return this.record("DELETED", key, this.mustGet(key));
  }

  /** Ends every open watch cleanly, as the server does when timeoutSeconds runs out. */
  closeWatches(): void {
    for (const watcher of [...this.watchers]) this.endWatch(watcher);
  }

  /**
   * Goes back to an earlier resourceVersion, as an etcd restore does: lists and watches from a
   * newer one get 504 "Too large resource version", as the watch cache answers them.
   */
  rewind(to: number): void {
    this.rv = to;
    this.history.length = 0;
  }

  /** Forgets the history up to now: watches from an older resourceVersion get 410 Gone. */
  compact(): void {
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  /** Sends a BOOKMARK at the current resourceVersion to watches that allowed bookmarks. */
  sendBookmark(): void {
    const object = {
      kind: "Pod",
      apiVersion: "v1",
      metadata: { resourceVersion: this.resourceVersion },
    };
    for (const watcher of this.watchers) {
      if (watcher.bookmarks) writeEvent(watcher.res, "BOOKMARK", object);
    }
  }

  /** Stops listening and drops every connection: clients get ECONNREFUSED until up(). */
  async down(): Promise<void> {
    if (!this.isUp) return;
    this.isUp = false;
    for (const watcher of this.watchers) clearTimeout(watcher.timer);
    this.watchers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Listens again, on the same port once one was assigned. */
  async up(): Promise<void> {
    if (this.isUp) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.port, "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    this.isUp = true;
  }

  close(): Promise<void> {
    return this.down();
  }

  /**
   * Writes a kubeconfig for this server: HTTPS trusts the test certificate by
   * certificate-authority-data; plain HTTP needs insecure-skip-tls-verify.
   */
  async writeKubeconfig(dir: string, token = "fake-token"): Promise<string> {
    const path = join(dir, "kubeconfig");
    const trust = this.options.tls
      ? { "certificate-authority-data": Buffer.from(testCert).toString("base64") }
      : { "insecure-skip-tls-verify": true };
    const config = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "fake", cluster: { server: this.url, ...trust } }],
      users: [{ name: "fake", user: { token } }],
      contexts: [{ name: "fake", context: { cluster: "fake", user: "fake" } }],
      "current-context": "fake",
    };
    await writeFile(path, JSON.stringify(config, null, 2));
    return path;
  }

  private mustGet(key: string): Pod {
    const pod = this.pods.get(key);
    if (!pod) throw new Error(`fake apiserver: no pod ${key}`);
    return pod;
  }

  private record(type: HistoryEvent["type"], key: string, pod: Pod): Pod {
    this.rv += 1;
    const object = structuredClone({
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: String(this.rv) },
    });
    const previous = this.pods.get(key);
    if (type === "DELETED") this.pods.delete(key);
    else this.pods.set(key, object);
    const event: HistoryEvent = { rv: this.rv, type, object, previous };
    this.history.push(event);
    for (const watcher of this.watchers) deliver(watcher, event);
    return structuredClone(object);
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const refusal = this.refusal(req);
    if (refusal) {
      writeJson(res, refusal.code, refusal);
      return;
    }
    const url = new URL(req.url ?? "/", "http://fake");
    const params = url.searchParams;
    const fieldSelector = params.get("fieldSelector") ?? undefined;
    if (url.pathname === "/api/v1/nodes") {
      this.requests.push({
        kind: "nodes",
        resourceVersion: params.get("resourceVersion") ?? undefined,
        fieldSelector,
        allowWatchBookmarks: false,
      });
      if (this.hostile.forbidNodes) {
        const message = `nodes is forbidden: cannot list resource "nodes" in API group ""`;
        writeJson(res, 403, status(403, "Forbidden", message));
      } else if (!this.hostile.listNeverAnswers) this.serveNodes(res, fieldSelector);
      return;
    }
    const matches = selectorMatcher(fieldSelector) ?? (() => true);
    const watch = params.get("watch");
    const resourceVersion = params.get("resourceVersion") ?? undefined;
    const allowWatchBookmarks = params.get("allowWatchBookmarks") === "true";
    const isWatch = watch === "1" || watch === "true";
    const kind = isWatch ? "watch" : "list";
    this.requests.push({ kind, resourceVersion, fieldSelector, allowWatchBookmarks });
    if (!isWatch) {
      this.serveList(res, matches);
      return;
    }
    if (this.hostile.watch !== undefined) {
      this.serveHostileWatch(res, this.hostile.watch);
      return;
    }
    const timeoutSeconds = Number(params.get("timeoutSeconds") ?? "0");
    this.serveWatch(res, {
      matches,
      resourceVersion,
      bookmarks: allowWatchBookmarks,
      timeoutSeconds,
    });
  }

  /** The Status for a request this server does not serve, as the API server words them. */
  private refusal(req: IncomingMessage): Status | undefined {
    const url = new URL(req.url ?? "/", "http://fake");
    if (this.authorization !== undefined && req.headers.authorization !== this.authorization) {
      return status(401, "Unauthorized", "Unauthorized");
    }
    if (req.method !== "GET") return status(405, "MethodNotAllowed", "only GET is served");
    const fieldSelector = url.searchParams.get("fieldSelector") ?? undefined;
    if (url.pathname === "/api/v1/nodes") {
      if (nodeNameOf(fieldSelector) !== undefined) return undefined;
      return status(
        400,
        "BadRequest",
        `unable to parse requested field selector: ${fieldSelector}`,
      );
    }
    if (url.pathname !== "/api/v1/pods") {
      return status(404, "NotFound", "the server could not find the requested resource");
    }
    if (!selectorMatcher(fieldSelector)) {
      return status(
        400,
        "BadRequest",
        `unable to parse requested field selector: ${fieldSelector}`,
      );
    }
    const rv = url.searchParams.get("resourceVersion") ?? "";
    if (rv !== "" && !Number.isInteger(Number(rv))) {
      return status(400, "BadRequest", `invalid resource version: ${rv}`);
    }
    if (Number(rv) > this.rv) {
      const message = `Too large resource version: ${rv}, current: ${this.rv}`;
      return status(504, "Timeout", message);
    }
    return undefined;
  }

  private serveList(res: ServerResponse, matches: (pod: Pod) => boolean): void {
    if (this.hostile.listNeverAnswers) return;
    if (this.hostile.listGarbage) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("<html>not a pod list</html>");
      return;
    }
    const items = [...this.pods.values()]
      .filter(matches)
      .map(({ kind, apiVersion, ...item }) => item);
    const body = JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: this.resourceVersion },
      items,
    });
    if (this.hostile.slowListMs === undefined) {
      writeJson(res, 200, JSON.parse(body));
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    trickle(res, body, this.hostile.slowListMs);
  }

  private serveNodes(res: ServerResponse, fieldSelector: string | undefined): void {
    const name = nodeNameOf(fieldSelector);
    const items = name !== undefined && !this.absentNodes.has(name) ? [{ metadata: { name } }] : [];
    writeJson(res, 200, {
      kind: "NodeList",
      apiVersion: "v1",
      metadata: { resourceVersion: this.resourceVersion },
      items,
    });
  }

  private serveHostileWatch(res: ServerResponse, mode: NonNullable<HostileModes["watch"]>): void {
    res.writeHead(200, { "Content-Type": "application/json" });
    if (mode === "one-event-then-close") {
      writeEvent(res, "BOOKMARK", { metadata: { resourceVersion: this.resourceVersion } });
    } else if (mode === "gone") {
      writeEvent(res, "ERROR", status(410, "Expired", "too old resource version"));
    } else if (mode === "garbage") {
      res.write("\u0000\u0001 not an event\n");
    }
    res.end();
  }

  private serveWatch(
    res: ServerResponse,
    request: {
      matches: (pod: Pod) => boolean;
      resourceVersion: string | undefined;
      bookmarks: boolean;
      timeoutSeconds: number;
    },
  ): void {
    const start = request.resourceVersion ?? "";
    const fromRv = Number(start);
    if (start !== "" && start !== "0" && fromRv < this.compactedRv) {
      const gone = status(
        410,
        "Expired",
        `too old resource version: ${fromRv} (${this.compactedRv})`,
      );
      if (this.options.expiredAs === "status") {
        writeJson(res, 410, gone);
        return;
      }
      // The watch cache's way: a 200 stream whose only event is the ERROR.
      res.writeHead(200, { "Content-Type": "application/json" });
      writeEvent(res, "ERROR", gone);
      res.end();
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.flushHeaders();
    const watcher: Watcher = {
      res,
      matches: request.matches,
      bookmarks: request.bookmarks,
      timer: undefined,
    };
    if (start === "" || start === "0") {
      // "Any" resourceVersion: the current state as synthetic ADDED events, then live.
      for (const pod of this.pods.values()) if (watcher.matches(pod)) writeEvent(res, "ADDED", pod);
    } else {
      for (const event of this.history) if (event.rv > fromRv) deliver(watcher, event);
    }
    this.watchers.add(watcher);
    res.on("close", () => {
      clearTimeout(watcher.timer);
      this.watchers.delete(watcher);
    });
    if (request.timeoutSeconds > 0) {
      watcher.timer = setTimeout(() => this.endWatch(watcher), request.timeoutSeconds * 1000);
      watcher.timer.unref();
    }
  }

  private endWatch(watcher: Watcher): void {
    clearTimeout(watcher.timer);
    this.watchers.delete(watcher);
    watcher.res.end();
  }
}

/** The node of `metadata.name=<node>` (or `==`), the only node selector understood. */
function nodeNameOf(selector: string | undefined): string | undefined {
  return /^metadata\.name==?(.+)$/.exec(selector ?? "")?.[1];
}

/** Writes `body` 64 bytes at a time, `everyMs` apart, until done or the client goes away. */
function trickle(res: ServerResponse, body: string, everyMs: number): void {
  let offset = 0;
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
      return;
    }
    res.write(body.slice(offset, offset + 64));
    offset += 64;
    if (offset >= body.length) {
      clearInterval(timer);
      res.end();
    }
  }, everyMs);
  timer.unref();
}

/** Only `spec.nodeName=<node>` (or `==`) is understood; no selector matches everything. */
function selectorMatcher(selector: string | undefined): ((pod: Pod) => boolean) | undefined {
  if (selector === undefined || selector === "") return () => true;
  const match = /^spec\.nodeName==?(.*)$/.exec(selector);
  if (!match) return undefined;
  const node = match[1];
  return (pod) => pod.spec?.nodeName === node;
}

function deliver(watcher: Watcher, event: HistoryEvent): void {
  const now = watcher.matches(event.object);
  const before = event.previous !== undefined && watcher.matches(event.previous);
  if (event.type === "DELETED") {
    if (before) writeEvent(watcher.res, "DELETED", event.object);
  } else if (now && before) writeEvent(watcher.res, "MODIFIED", event.object);
  else if (now) writeEvent(watcher.res, "ADDED", event.object);
  else if (before) writeEvent(watcher.res, "DELETED", event.object);
}

function writeEvent(res: ServerResponse, type: WatchEventType, object: unknown): void {
  const withKind =
    type === "ERROR" ? object : { kind: "Pod", apiVersion: "v1", ...(object as object) };
  res.write(`${JSON.stringify({ type, object: withKind })}\n`);
}

interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  code: number;
}

function status(code: number, reason: string, message: string): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
}

function writeJson(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
}
