// TLS in front of the HTTP server. Before each handshake the web config is checked for changes
// (WebConfigFile re-reads changed files) and a new certificate goes into the server's context,
// as exporter-toolkit reads its files per handshake (Go's GetConfigForClient); the client
// certificate policy of the config as it is then decides whether the connection reaches HTTP.
import type { Server as HttpServer } from "node:http";
import type { Socket } from "node:net";
import { createServer, type PeerCertificate, type Server, type TLSSocket } from "node:tls";
import type { Logger } from "../core/deps.js";
import type { TlsServerConfig } from "./web_config.js";
import type { WebConfigFile } from "./web_config_file.js";

/** A client that has not finished its handshake by then is dropped. */
const HandshakeTimeoutMs = 10_000;

/** The SANs of a certificate as Go lists them: DNS names, IPs, e-mails, URIs. */
function subjectAltNames(cert: PeerCertificate): string[] {
  return (cert.subjectaltname ?? "")
    .split(", ")
    .map((entry) => entry.slice(entry.indexOf(":") + 1))
    .filter((name) => name !== "");
}

/** Why the client's certificate (or its absence) is refused under the policy; undefined: fine. */
export function clientCertRefusal(tls: TlsServerConfig, socket: TLSSocket): string | undefined {
  const cert = socket.getPeerCertificate();
  const given = cert !== null && Object.keys(cert).length > 0;
  const verified = socket.authorized;
  switch (tls.clientAuthType) {
    case "NoClientCert":
    case "RequestClientCert":
      return undefined;
    case "RequireAnyClientCert":
      if (!given) return "no client certificate";
      break;
    case "VerifyClientCertIfGiven":
      if (given && !verified) return `client certificate: ${socket.authorizationError}`;
      break;
    case "RequireAndVerifyClientCert":
      if (!given) return "no client certificate";
      if (!verified) return `client certificate: ${socket.authorizationError}`;
      break;
  }
  if (tls.clientAllowedSans.length === 0) return undefined;
  if (subjectAltNames(cert).some((san) => tls.clientAllowedSans.includes(san))) return undefined;
  return "client certificate has none of client_allowed_sans";
}

export interface TlsListener {
  server: Server;
  /** Drops every connection, those still in their handshake included. */
  dropHandshakes(): void;
}

/** A TLS server handing each accepted connection to `http`. */
export function tlsListener(
  webConfig: WebConfigFile,
  http: HttpServer,
  logger: Logger,
): TlsListener {
  const start = webConfig.current();
  if (start instanceof Error || !start.tlsOptions) throw new Error("web config without TLS");
  // Whether client certificates are asked for is fixed at start (a server option); the policy
  // that judges them is always the current one, so a change that needs them fails closed.
  const requestCert = start.config.tls?.clientAuthType !== "NoClientCert";
  let generation = start.generation;
  const server = createServer({
    ...start.tlsOptions,
    requestCert,
    // Judged by the policy below: Go's VerifyClientCertIfGiven has no OpenSSL flag of its own.
    rejectUnauthorized: false,
    handshakeTimeout: HandshakeTimeoutMs,
  });
  // Raw sockets until they close: at shutdown the HTTP server closes those it was handed, and
  // these are what is left (a handshake in progress).
  const handshaking = new Set<Socket>();
  server.prependListener("connection", (socket: Socket) => {
    handshaking.add(socket);
    socket.once("close", () => handshaking.delete(socket));
    const loaded = webConfig.current();
    if (loaded instanceof Error || !loaded.tlsOptions) {
      socket.destroy();
      return;
    }
    if (loaded.generation !== generation) {
      generation = loaded.generation;
      server.setSecureContext(loaded.tlsOptions);
    }
  });
  // A plain-HTTP request, a scanner or a bad certificate: the client's problem, logged quietly.
  server.on("tlsClientError", (error, socket) => {
    logger.debug("TLS handshake failed", { remote: socket.remoteAddress, error: error.message });
  });
  server.on("secureConnection", (socket: TLSSocket) => {
    const current = webConfig.current();
    const policy = current instanceof Error ? undefined : current.config.tls;
    const refusal = policy ? clientCertRefusal(policy, socket) : "web config is invalid";
    if (refusal) {
      logger.debug("TLS client refused", { remote: socket.remoteAddress, reason: refusal });
      socket.destroy();
      return;
    }
    http.emit("connection", socket);
  });
  return {
    server,
    dropHandshakes: () => {
      for (const socket of handshaking) socket.destroy();
    },
  };
}
