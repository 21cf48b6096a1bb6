// A kubeconfig file read as client-go's clientcmd does, for the parts the api source uses: the
// current context's cluster (endpoint, TLS) and user (token, token file, client certificate,
// basic auth, exec plugin). Relative paths resolve against the file's directory
// (clientcmd.ResolveLocalPaths). Errors name fields and entries, never values: the file holds
// credentials.
import { dirname, isAbsolute, resolve, sep } from "node:path";
import { parseDocument } from "yaml";
import { readConfigText } from "../file/config_file.js";

/** Where and how to reach the API server. */
export interface Cluster {
  name: string;
  server: string;
  /** PEM of the CA bundle, from certificate-authority-data. */
  caData?: string;
  /** Path of the CA bundle (absolute), read at request time. */
  caFile?: string;
  skipTLSVerify: boolean;
  /** SNI and the name the server's certificate is checked against, when not the URL's host. */
  tlsServerName?: string;
}

/** An exec credential plugin (client.authentication.k8s.io ExecConfig). */
export interface ExecConfig {
  apiVersion: "client.authentication.k8s.io/v1" | "client.authentication.k8s.io/v1beta1";
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  interactiveMode: "Never" | "IfAvailable" | "Always";
  provideClusterInfo: boolean;
  installHint?: string;
}

/** Who the api source is, as the kubeconfig's user entry says. */
export interface User {
  name: string;
  token?: string;
  /** Path (absolute) of a bearer token, re-read at request time (rotation). */
  tokenFile?: string;
  certData?: string;
  certFile?: string;
  keyData?: string;
  keyFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
}

/** A parsed kubeconfig: its current context's cluster and user. */
export interface KubeConfigFile {
  cluster: Cluster;
  user: User;
  /** The context's namespace, if it names one. */
  namespace?: string;
}

type Fields = Record<string, unknown>;

const execApiVersions = new Set<string>([
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
]);

/** Reads and resolves the kubeconfig at `path`. */
export async function readKubeConfigFile(path: string): Promise<KubeConfigFile> {
  const text = await readConfigText(path);
  return parseKubeConfig(text, dirname(resolve(path)));
}

/** Parses kubeconfig text; relative paths resolve against `baseDir`. */
export function parseKubeConfig(text: string, baseDir: string): KubeConfigFile {
  return mergeKubeConfigs([{ text, baseDir }]);
}

/** A kubeconfig document and the directory its relative paths resolve against. */
export interface KubeConfigDocument {
  text: string;
  baseDir: string;
}

/**
 * Several kubeconfig files as clientcmd merges $KUBECONFIG: the first file to set
 * current-context (or `context`, kubectl's --context) names the context, and each context,
 * cluster and user is taken from the first file that defines it, its paths resolved against
 * that file's directory.
 */
export function mergeKubeConfigs(
  documents: readonly KubeConfigDocument[],
  context?: string,
): KubeConfigFile {
  const roots = documents.map(({ text, baseDir }) => ({ root: parseRoot(text), baseDir }));
  const contextName =
    context ??
    roots
      .map(({ root }) => optionalString(root, "current-context", "the document"))
      .find((name) => name !== undefined && name !== "");
  const first = (list: string, name: string | undefined) => {
    if (name === undefined) return undefined;
    for (const { root, baseDir } of roots) {
      const fields = named(root, list, name);
      if (fields) return { fields, baseDir };
    }
    return undefined;
  };
  const found = first("contexts", contextName);
  if (context !== undefined && !found) throw new Error(`context ${context} is not defined`);
  const clusterName = found && optionalString(found.fields, "cluster", "the context");
  const cluster = first("clusters", clusterName);
  if (!found || !cluster) throw new Error("the current context names no known cluster");
  const userName = optionalString(found.fields, "user", "the context");
  let user: User = { name: "" };
  if (userName !== undefined && userName !== "") {
    const entry = first("users", userName);
    if (!entry) throw new Error(`user ${userName} of the current context is not defined`);
    user = readUser(userName, entry.fields, entry.baseDir);
  }
  return {
    cluster: readCluster(clusterName as string, cluster.fields, cluster.baseDir),
    user,
    namespace: optionalString(found.fields, "namespace", "the context"),
  };
}

function parseRoot(text: string): Fields {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    // The parser's message quotes the offending line, which may be a token.
    const line = doc.errors[0]?.linePos?.[0]?.line;
    throw new Error(line === undefined ? "not valid YAML" : `not valid YAML (line ${line})`);
  }
  // An empty file is an empty kubeconfig.
  return doc.contents === null ? {} : asFields(doc.toJS(), "the document");
}

/** The body of the entry called `name` of the list `list` ({name, <kind>: {...}}), if any. */
function named(root: Fields, list: string, name: string): Fields | undefined {
  const entries = root[list] ?? [];
  if (!Array.isArray(entries)) throw new Error(`${list} is not a list`);
  const kind = list.slice(0, -1);
  for (const raw of entries) {
    const entry = asFields(raw, `an entry of ${list}`);
    if (entry.name !== name) continue;
    return asFields(entry[kind] ?? {}, `${kind} ${name}`);
  }
  return undefined;
}

function readCluster(name: string, fields: Fields, baseDir: string): Cluster {
  const where = `cluster ${name}`;
  refuse(fields, where, ["proxy-url"], "a proxy is not supported");
  const server = optionalString(fields, "server", where) ?? "";
  if (!URL.canParse(server)) throw new Error(`kubeconfig: ${where} has no valid server URL`);
  const caData = optionalData(fields, "certificate-authority-data", where);
  const caFile = optionalPath(fields, "certificate-authority", where, baseDir);
  const skipTLSVerify = fields["insecure-skip-tls-verify"] === true;
  if ((caData !== undefined || caFile !== undefined) && skipTLSVerify) {
    // client-go's validation: trusting a CA and trusting anything contradict each other.
    throw new Error(`${where}: certificate-authority with insecure-skip-tls-verify is not allowed`);
  }
  bothNotAllowed(where, caData, caFile, "certificate-authority");
  const tlsServerName = optionalString(fields, "tls-server-name", where);
  return { name, server, caData, caFile, skipTLSVerify, tlsServerName };
}

function readUser(name: string, fields: Fields, baseDir: string): User {
  const where = `user ${name}`;
  refuse(
    fields,
    where,
    ["auth-provider"],
    "auth-provider plugins (legacy gcp, oidc, azure) are not supported: use an exec plugin",
  );
  refuse(
    fields,
    where,
    ["as", "as-uid", "as-groups", "as-user-extra"],
    "impersonation is not supported",
  );
  const user: User = {
    name,
    token: optionalString(fields, "token", where),
    tokenFile: optionalPath(fields, "tokenFile", where, baseDir),
    certData: optionalData(fields, "client-certificate-data", where),
    certFile: optionalPath(fields, "client-certificate", where, baseDir),
    keyData: optionalData(fields, "client-key-data", where),
    keyFile: optionalPath(fields, "client-key", where, baseDir),
    username: optionalString(fields, "username", where),
    password: optionalString(fields, "password", where),
  };
  bothNotAllowed(where, user.certData, user.certFile, "client-certificate");
  bothNotAllowed(where, user.keyData, user.keyFile, "client-key");
  const hasCert = user.certData !== undefined || user.certFile !== undefined;
  const hasKey = user.keyData !== undefined || user.keyFile !== undefined;
  if (hasCert !== hasKey)
    throw new Error(`${where}: a client certificate needs its key, and a key its certificate`);
  const basic = user.username !== undefined || user.password !== undefined;
  if (basic && (user.token !== undefined || user.tokenFile !== undefined)) {
    throw new Error(`${where}: username/password or a bearer token may be set, not both`);
  }
  if (fields.exec !== undefined && fields.exec !== null) {
    user.exec = readExec(asFields(fields.exec, `${where} exec`), `${where} exec`, baseDir);
  }
  return user;
}

function readExec(fields: Fields, where: string, baseDir: string): ExecConfig {
  const apiVersion = optionalString(fields, "apiVersion", where) ?? "";
  if (!execApiVersions.has(apiVersion)) {
    throw new Error(`${where}: apiVersion must be client.authentication.k8s.io/v1 or v1beta1`);
  }
  let command = optionalString(fields, "command", where) ?? "";
  if (command === "") throw new Error(`${where}: command is required`);
  // Only a command with a path separator is a path; a bare name is looked up in PATH.
  if (command.includes(sep) && !isAbsolute(command)) command = resolve(baseDir, command);
  const args = (fields.args ?? []) as unknown;
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    throw new Error(`${where}: args must be a list of strings`);
  }
  const env = (fields.env ?? []) as unknown;
  if (
    !Array.isArray(env) ||
    !env.every((e) => typeof e?.name === "string" && typeof e?.value === "string")
  ) {
    throw new Error(`${where}: env must be a list of {name, value}`);
  }
  const mode = fields.interactiveMode ?? (apiVersion.endsWith("/v1") ? undefined : "IfAvailable");
  if (mode !== "Never" && mode !== "IfAvailable" && mode !== "Always") {
    throw new Error(`${where}: interactiveMode must be Never, IfAvailable or Always`);
  }
  return {
    apiVersion: apiVersion as ExecConfig["apiVersion"],
    command,
    args: args as string[],
    env: (env as { name: string; value: string }[]).map(({ name, value }) => ({ name, value })),
    interactiveMode: mode,
    provideClusterInfo: fields.provideClusterInfo === true,
    installHint: optionalString(fields, "installHint", where),
  };
}

function asFields(value: unknown, where: string): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${where} is not a mapping`);
  }
  return value as Fields;
}

function optionalString(fields: Fields, key: string, where: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new Error(`${where}: ${key} is not a string`);
  return value;
}

function optionalPath(fields: Fields, key: string, where: string, baseDir: string) {
  const value = optionalString(fields, key, where);
  return value === undefined || value === "" ? undefined : resolve(baseDir, value);
}

/** A *-data field: base64 of PEM (or of a token), decoded. */
function optionalData(fields: Fields, key: string, where: string): string | undefined {
  const value = optionalString(fields, key, where);
  if (value === undefined || value === "") return undefined;
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(value)) throw new Error(`${where}: ${key} is not base64`);
  return Buffer.from(value, "base64").toString("utf8");
}

function refuse(fields: Fields, where: string, keys: string[], why: string): void {
  const found = keys.find((key) => fields[key] !== undefined && fields[key] !== null);
  if (found !== undefined) throw new Error(`${where}: ${found}: ${why}`);
}

function bothNotAllowed(where: string, data: unknown, file: unknown, key: string): void {
  if (data !== undefined && file !== undefined) {
    throw new Error(`${where}: ${key}-data and ${key} are both set; use only one`);
  }
}
