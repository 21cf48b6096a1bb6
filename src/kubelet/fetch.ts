// One GET of the kubelet's /metrics: over TLS verified against the kubelet's CA bundle (or not,
// only when asked explicitly), with the service-account token read afresh each time (projected
// tokens rotate), the whole exchange bounded in time and the body in size.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import tls from "node:tls";
import { errorMessage } from "../sources/error_message.js";
import { readConfigText } from "../sources/file/config_file.js";
import {
  type Exposition,
  ExpositionError,
  ExpositionReader,
  ExpositionTooLargeError,
} from "./exposition.js";
import { WitnessSeries } from "./signals.js";

/** Why a poll failed: the `reason` label of podconfig_kubelet_poll_errors_total. */
export const KubeletPollErrorReasons = [
  "credentials", // the token or CA file could not be read
  "fetch", // connection, TLS or timeout
  "unauthorized", // 401: the token is not accepted
  "forbidden", // 403: no RBAC for nodes/metrics
  "status", // any other answer than 200
  "too_large", // body, series or a line beyond its bound
  "parse", // not a Prometheus text exposition
] as const;
export type KubeletPollErrorReason = (typeof KubeletPollErrorReasons)[number];

export class KubeletPollError extends Error {
  override name = "KubeletPollError";
  constructor(
    readonly reason: KubeletPollErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export interface KubeletFetchOptions {
  /** e.g. https://10.0.0.5:10250/metrics */
  url: string;
  /** A bearer token file (the service account's); read on every poll. */
  tokenFile: string | undefined;
  /** PEM bundle the kubelet's serving certificate must chain to; read on every poll. */
  caFile: string | undefined;
  /**
   * The name the serving certificate must carry, instead of the URL's host: the kubelet's
   * self-signed kubelet.crt has only its hostname (a DNS name), never the node's IP, which is
   * what --kubelet.url holds. client-go's TLSClientConfig.ServerName.
   */
  tlsServerName?: string | undefined;
  /** Skip verification of the kubelet's certificate: only with the explicit flag. */
  insecureSkipVerify: boolean;
  /** Whole exchange, body included. */
  timeoutMs: number;
  maxBytes: number;
}

/**
 * The bounds of one answer, none of which the kubelet has (every one is ours); see the bounds
 * table in deploy/README.md. A kubelet's /metrics is tens to hundreds of KiB and a few thousand
 * series; the series that grow with the node are per container (log usage) and per volume, so
 * a full EKS node (737 pods) with ten containers each writes about 10,000.
 */
export const KubeletMetricsBounds = {
  /** Far above a kubelet's /metrics (tens to hundreds of KiB, a few MiB on a full node). */
  maxBytes: 32 * 1024 * 1024,
  /** Ten times a full EKS node's; past it the answer is not a kubelet's /metrics. */
  maxSeries: 100_000,
  /** Label values are names and paths (at most 253 characters in Kubernetes); 64 Ki is 250x. */
  maxLineChars: 64 * 1024,
} as const;

export interface KubeletFetchResult {
  /** The witness's series only (signals.ts WitnessSeries). */
  exposition: Exposition;
  bytes: number;
}

export async function fetchKubeletMetrics(
  options: KubeletFetchOptions,
): Promise<KubeletFetchResult> {
  const url = new URL(options.url);
  const [token, ca] = await Promise.all([
    readCredential(options.tokenFile, "token"),
    readCredential(options.caFile, "CA bundle"),
  ]);
  const headers: Record<string, string> = { Accept: "text/plain;version=0.0.4" };
  if (token !== undefined) headers.Authorization = `Bearer ${token.trim()}`;
  const request = url.protocol === "https:" ? https.request : http.request;
  const tls =
    url.protocol === "https:"
      ? {
          ca: ca === undefined ? undefined : ca,
          rejectUnauthorized: !options.insecureSkipVerify,
          ...serverNameOptions(options.tlsServerName),
        }
      : {};
  // Every failure settles the promise itself, then destroys the request: Node 26 emits no
  // 'error' for a request destroyed once its response has ended (Node 20 does), which left a
  // poll of a short non-metrics answer, or a timed-out one, pending forever.
  return new Promise<KubeletFetchResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      fail(new KubeletPollError("fetch", `timed out after ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    const fail = (error: unknown): void => {
      clearTimeout(timer);
      reject(
        error instanceof KubeletPollError
          ? error
          : new KubeletPollError("fetch", errorMessage(error)),
      );
    };
    const req = request(url, { method: "GET", headers, agent: false, ...tls }, (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        response.resume();
        fail(statusError(status));
        req.destroy();
        return;
      }
      // Each chunk is read and dropped as it comes: only the witness's series are held.
      const reader = new ExpositionReader(WitnessSeries, {
        maxSeries: KubeletMetricsBounds.maxSeries,
        maxLineChars: KubeletMetricsBounds.maxLineChars,
      });
      let bytes = 0;
      let failed = false;
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        if (failed) return;
        bytes += Buffer.byteLength(chunk);
        try {
          if (bytes > options.maxBytes)
            throw new KubeletPollError(
              "too_large",
              `body larger than ${options.maxBytes} bytes (the size bound)`,
            );
          reader.push(chunk);
        } catch (error) {
          // The rest of the body is not read; "end" may still come for what was received.
          failed = true;
          fail(readError(error));
          req.destroy();
        }
      });
      response.on("end", () => {
        if (failed) return;
        clearTimeout(timer);
        try {
          const exposition = reader.end();
          if (exposition.series === 0) throw new ExpositionError("no samples in the answer");
          resolve({ exposition, bytes });
        } catch (error) {
          reject(readError(error));
        }
      });
      response.on("error", fail);
    });
    req.on("error", fail);
    req.end();
  });
}

function readError(error: unknown): KubeletPollError {
  if (error instanceof KubeletPollError) return error;
  if (error instanceof ExpositionTooLargeError)
    return new KubeletPollError("too_large", error.message);
  if (error instanceof ExpositionError) return new KubeletPollError("parse", error.message);
  return new KubeletPollError("parse", errorMessage(error));
}

/**
 * The certificate is checked against `serverName` instead of the URL's host; SNI carries it
 * only when it is a DNS name (RFC 6066 has no IP addresses in SNI, and Node warns on one), so
 * the host IP works as a server name too (kubelet-tls-bootstrap).
 */
function serverNameOptions(serverName: string | undefined): tls.ConnectionOptions {
  if (serverName === undefined) return {};
  return {
    ...(isIP(serverName) === 0 ? { servername: serverName } : {}),
    checkServerIdentity: (_host, cert) => tls.checkServerIdentity(serverName, cert),
  };
}

function statusError(status: number): KubeletPollError {
  if (status === 401) return new KubeletPollError("unauthorized", "401 Unauthorized");
  if (status === 403) {
    return new KubeletPollError("forbidden", "403 Forbidden: is nodes/metrics get granted?");
  }
  return new KubeletPollError("status", `HTTP ${status}`);
}

async function readCredential(path: string | undefined, what: string): Promise<string | undefined> {
  if (path === undefined) return undefined;
  try {
    return await readConfigText(path);
  } catch (error) {
    throw new KubeletPollError(
      "credentials",
      `cannot read the ${what} ${path}: ${errorMessage(error)}`,
    );
  }
}
