// --web.config.file: exporter-toolkit's web configuration (TLS, basic auth, response headers),
// so the exporter is secured as node_exporter is. Decoded strictly, as exporter-toolkit does
// (an unknown key is an error, not a silently ignored setting); relative file names are
// resolved against the file's directory. Pure: bytes in, a checked WebConfig out.
// https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md
import { dirname, resolve } from "node:path";
import { isObject, type JsonObject } from "../sources/json_object.js";
import { parseYamlOrJson } from "../sources/manifest/parse.js";

export class WebConfigError extends Error {
  override readonly name = "WebConfigError";
}

/** Go's tls.ClientAuthType names. */
export const ClientAuthTypes = [
  "NoClientCert",
  "RequestClientCert",
  "RequireAnyClientCert",
  "VerifyClientCertIfGiven",
  "RequireAndVerifyClientCert",
] as const;
export type ClientAuthType = (typeof ClientAuthTypes)[number];

const tlsVersions = {
  TLS10: "TLSv1",
  TLS11: "TLSv1.1",
  TLS12: "TLSv1.2",
  TLS13: "TLSv1.3",
} as const;
export type TlsVersion = (typeof tlsVersions)[keyof typeof tlsVersions];

// Go's names for the TLS 1.0-1.2 suites it offers (tls.CipherSuites()), as OpenSSL names them.
// TLS 1.3 suites are not configurable, in Go as here.
const cipherSuites: Record<string, string> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
};

// Go's tls.CurveID names, as OpenSSL names the groups.
const curves: Record<string, string> = {
  CurveP256: "P-256",
  CurveP384: "P-384",
  CurveP521: "P-521",
  X25519: "X25519",
};

// The response headers exporter-toolkit lets a user set, with the values it accepts (none
// listed: any value).
const allowedHeaders: Record<string, readonly string[]> = {
  "Strict-Transport-Security": [],
  "X-Content-Type-Options": ["nosniff"],
  "X-Frame-Options": ["deny", "sameorigin"],
  "X-XSS-Protection": [],
  "Content-Security-Policy": [],
};

/** A PEM given inline or by a file name (resolved); read when the TLS context is built. */
export type Pem = { file: string } | { inline: string };

export interface TlsServerConfig {
  cert: Pem;
  key: Pem;
  clientCA: Pem | undefined;
  clientAuthType: ClientAuthType;
  clientAllowedSans: string[];
  minVersion: TlsVersion;
  maxVersion: TlsVersion;
  /** OpenSSL cipher list, or undefined for Node's defaults. */
  ciphers: string | undefined;
  /** OpenSSL group list, or undefined for Node's defaults. */
  curves: string | undefined;
  preferServerCipherSuites: boolean;
}

export interface WebConfig {
  tls: TlsServerConfig | undefined;
  /** User name -> bcrypt hash; empty: no authentication. */
  basicAuthUsers: ReadonlyMap<string, string>;
  /** Extra response headers. */
  headers: Readonly<Record<string, string>>;
}

type Json = JsonObject;

/** The object at `field`, every key of it known. */
function section(value: unknown, field: string, keys: readonly string[]): Json {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new WebConfigError(`${field}: must be a map`);
  for (const key of Object.keys(value))
    if (!keys.includes(key))
      throw new WebConfigError(`${field}: unknown field ${JSON.stringify(key)}`);
  return value;
}

function str(obj: Json, field: string, where: string): string | undefined {
  const value = obj[field];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new WebConfigError(`${where}.${field}: must be a string`);
  return value;
}

function strings(obj: Json, field: string, where: string): string[] {
  const value = obj[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new WebConfigError(`${where}.${field}: must be a list of strings`);
  return value;
}

function bool(obj: Json, field: string, where: string, fallback: boolean): boolean {
  const value = obj[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean")
    throw new WebConfigError(`${where}.${field}: must be true or false`);
  return value;
}

/** `cert` inline or `cert_file`, not both. */
function pem(obj: Json, inline: string, file: string, dir: string): Pem | undefined {
  const text = str(obj, inline, "tls_server_config");
  const path = str(obj, file, "tls_server_config");
  if (text !== undefined && path !== undefined)
    throw new WebConfigError(`tls_server_config: give ${inline} or ${file}, not both`);
  if (text !== undefined) return { inline: text };
  if (path !== undefined) return { file: resolve(dir, path) };
  return undefined;
}

function version(obj: Json, field: string, fallback: TlsVersion): TlsVersion {
  const name = str(obj, field, "tls_server_config");
  if (name === undefined) return fallback;
  const v = tlsVersions[name as keyof typeof tlsVersions];
  if (!v)
    throw new WebConfigError(
      `tls_server_config.${field}: unknown TLS version ${JSON.stringify(name)} (TLS10, TLS11, TLS12, TLS13)`,
    );
  return v;
}

function mapped(names: string[], table: Record<string, string>, field: string): string | undefined {
  if (names.length === 0) return undefined;
  return names
    .map((name) => {
      const to = table[name];
      if (!to)
        throw new WebConfigError(
          `tls_server_config.${field}: unknown value ${JSON.stringify(name)}`,
        );
      return to;
    })
    .join(":");
}

const tlsKeys = [
  "cert",
  "key",
  "client_ca",
  "cert_file",
  "key_file",
  "client_auth_type",
  "client_ca_file",
  "client_allowed_sans",
  "min_version",
  "max_version",
  "cipher_suites",
  "prefer_server_cipher_suites",
  "curve_preferences",
];

function tlsServerConfig(raw: unknown, dir: string): TlsServerConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  const obj = section(raw, "tls_server_config", tlsKeys);
  const cert = pem(obj, "cert", "cert_file", dir);
  const key = pem(obj, "key", "key_file", dir);
  if (!cert) throw new WebConfigError("tls_server_config: missing cert_file");
  if (!key) throw new WebConfigError("tls_server_config: missing key_file");
  const clientCA = pem(obj, "client_ca", "client_ca_file", dir);
  const auth = str(obj, "client_auth_type", "tls_server_config") ?? "NoClientCert";
  if (!ClientAuthTypes.includes(auth as ClientAuthType))
    throw new WebConfigError(
      `tls_server_config.client_auth_type: invalid ${JSON.stringify(auth)} (one of ${ClientAuthTypes.join(", ")})`,
    );
  const clientAuthType = auth as ClientAuthType;
  if (clientCA && clientAuthType === "NoClientCert")
    throw new WebConfigError(
      "tls_server_config: client CA configured with client_auth_type NoClientCert: client certificates would never be asked for",
    );
  if (!clientCA && clientAuthType.includes("Verify"))
    throw new WebConfigError(
      `tls_server_config: client_auth_type ${clientAuthType} needs client_ca_file to verify against`,
    );
  const clientAllowedSans = strings(obj, "client_allowed_sans", "tls_server_config");
  if (
    clientAllowedSans.length > 0 &&
    !["RequireAnyClientCert", "RequireAndVerifyClientCert"].includes(clientAuthType)
  )
    throw new WebConfigError(
      "tls_server_config: client_allowed_sans needs client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert",
    );
  const minVersion = version(obj, "min_version", "TLSv1.2");
  const maxVersion = version(obj, "max_version", "TLSv1.3");
  if (minVersion > maxVersion)
    throw new WebConfigError("tls_server_config: min_version is above max_version");
  return {
    cert,
    key,
    clientCA,
    clientAuthType,
    clientAllowedSans,
    minVersion,
    maxVersion,
    ciphers: mapped(
      strings(obj, "cipher_suites", "tls_server_config"),
      cipherSuites,
      "cipher_suites",
    ),
    curves: mapped(
      strings(obj, "curve_preferences", "tls_server_config"),
      curves,
      "curve_preferences",
    ),
    preferServerCipherSuites: bool(obj, "prefer_server_cipher_suites", "tls_server_config", true),
  };
}

// $2a$, $2b$ or $2y$ (htpasswd -B), a two-digit cost, 22 characters of salt and 31 of hash.
const bcryptHash = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;

/**
 * The highest bcrypt cost accepted. Each step doubles the work of every check: in this
 * process's bcrypt (JavaScript) cost 10, Go's default, takes 0.1 to 0.4 s, 12 four times as
 * long; cost 31 would take days, and every password guess would cost the exporter that much.
 */
export const MaxBcryptCost = 12;
/** Users are scrapers and people, a handful; the bound keeps a load (and a reload) short. */
export const MaxBasicAuthUsers = 1000;

/** The cost a bcrypt hash was made with. */
export function bcryptCost(hash: string): number {
  return Number(hash.slice(4, 6));
}

/** Every hash must be bcrypt; a plain password here would let nobody in. */
function basicAuthUsers(raw: unknown): Map<string, string> {
  const users = new Map<string, string>();
  if (raw === undefined || raw === null) return users;
  if (!isObject(raw))
    throw new WebConfigError("basic_auth_users: must be a map of user to bcrypt hash");
  const entries = Object.entries(raw);
  if (entries.length > MaxBasicAuthUsers)
    throw new WebConfigError(
      `basic_auth_users: ${entries.length} users, more than ${MaxBasicAuthUsers} (the user bound)`,
    );
  for (const [user, hash] of entries) {
    if (typeof hash !== "string")
      throw new WebConfigError(
        `basic_auth_users: the hash of ${JSON.stringify(user)} must be a string`,
      );
    if (!bcryptHash.test(hash))
      throw new WebConfigError(
        `basic_auth_users: the password of ${JSON.stringify(user)} is not a bcrypt hash (not shown)`,
      );
    if (bcryptCost(hash) > MaxBcryptCost)
      throw new WebConfigError(
        `basic_auth_users: the hash of ${JSON.stringify(user)} has cost ${bcryptCost(hash)}, above ${MaxBcryptCost}: every check would take ${2 ** (bcryptCost(hash) - MaxBcryptCost)} times as long as at ${MaxBcryptCost}, and every wrong password costs the exporter as much (make it with htpasswd -B -C ${MaxBcryptCost} or lower)`,
      );
    users.set(user, hash);
  }
  return users;
}

function headers(raw: unknown): Record<string, string> {
  const obj = section(raw, "http_server_config.headers", Object.keys(allowedHeaders));
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(obj)) {
    if (value === undefined || value === null || value === "") continue;
    if (typeof value !== "string")
      throw new WebConfigError(`http_server_config.headers.${name}: must be a string`);
    const allowed = allowedHeaders[name] ?? [];
    if (allowed.length > 0 && !allowed.includes(value))
      throw new WebConfigError(
        `http_server_config.headers.${name}: expected one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`,
      );
    result[name] = value;
  }
  return result;
}

/** Decodes the file's bytes; `path` locates relative file names and names the file in errors. */
export function parseWebConfig(text: string, path: string): WebConfig {
  let raw: unknown;
  try {
    // Linear in the input, as go-yaml v2 reads it for exporter-toolkit (yaml's parse() took
    // 37 s for 50,000 users).
    raw = parseYamlOrJson(Buffer.from(text, "utf8"));
  } catch (err) {
    throw new WebConfigError(
      `not YAML: ${err instanceof Error ? err.message.split("\n")[0] : err}`,
    );
  }
  // An empty file is an empty configuration, as in exporter-toolkit.
  const top = section(raw ?? {}, "web config", [
    "tls_server_config",
    "http_server_config",
    "basic_auth_users",
  ]);
  const http = section(top.http_server_config, "http_server_config", ["http2", "headers"]);
  // HTTP/2 is on by default in exporter-toolkit; this server speaks HTTP/1.1 either way.
  bool(http, "http2", "http_server_config", true);
  return {
    tls: tlsServerConfig(top.tls_server_config, dirname(path)),
    basicAuthUsers: basicAuthUsers(top.basic_auth_users),
    headers: headers(http.headers),
  };
}
