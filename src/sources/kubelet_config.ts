// The source-related fields of a KubeletConfiguration file (--config for the kubelet).
import { dirname, isAbsolute, resolve } from "node:path";
import { DurationError, MaxTimerMs, parseDuration, TooLongForATimer } from "./duration.js";
import { errorMessage } from "./error_message.js";
import { readConfigFile } from "./file/config_file.js";
import { HeaderError, type HeaderMap, validateHeaders } from "./http/headers.js";
import { isObject, type JsonObject } from "./json_object.js";
import { ManifestError } from "./manifest/error.js";
import { parseYamlOrJson } from "./manifest/parse.js";
import { MaxManifestBytes } from "./manifest/read.js";

const KubeletConfigurationKind = "KubeletConfiguration";
const KubeletConfigurationAPIVersion = "kubelet.config.k8s.io/v1beta1";

/** What the file says; a field it leaves out (or empty, for the strings) is absent. */
export interface KubeletConfigSources {
  /** Resolved against the config file's directory when relative, as the kubelet does. */
  staticPodPath?: string;
  staticPodURL?: string;
  staticPodURLHeader?: HeaderMap;
  fileCheckFrequencyMs?: number;
  httpCheckFrequencyMs?: number;
}

export class KubeletConfigError extends Error {
  override readonly name = "KubeletConfigError";
}

/** Reads and checks a KubeletConfiguration file (YAML or JSON). Throws KubeletConfigError. */
export async function readKubeletConfig(path: string): Promise<KubeletConfigSources> {
  let data: Buffer;
  try {
    data = await readConfigFile(path, MaxManifestBytes);
  } catch (err) {
    const detail = err instanceof ManifestError ? err.detail : errorMessage(err);
    throw new KubeletConfigError(`failed to read kubelet config file ${path}: ${detail}`);
  }
  return parseKubeletConfig(data, path);
}

/** Decodes the bytes of the file at `path` (used for relative paths and messages). */
function parseKubeletConfig(data: Uint8Array, path: string): KubeletConfigSources {
  const fail = (detail: string) =>
    new KubeletConfigError(`failed to decode kubelet config file ${path}: ${detail}`);
  let value: unknown;
  try {
    value = parseYamlOrJson(data);
  } catch (err) {
    throw fail(errorMessage(err));
  }
  if (!isObject(value)) throw fail("not an object");
  if (value.kind !== KubeletConfigurationKind)
    throw fail(
      `kind must be ${JSON.stringify(KubeletConfigurationKind)}, got ${JSON.stringify(value.kind ?? "")}`,
    );
  if (value.apiVersion !== KubeletConfigurationAPIVersion)
    throw fail(
      `apiVersion must be ${JSON.stringify(KubeletConfigurationAPIVersion)}, got ${JSON.stringify(value.apiVersion ?? "")}`,
    );

  const result: KubeletConfigSources = {};
  const staticPodPath = optionalString(value, "staticPodPath", fail);
  if (staticPodPath)
    result.staticPodPath = isAbsolute(staticPodPath)
      ? staticPodPath
      : resolve(dirname(path), staticPodPath);
  const staticPodURL = optionalString(value, "staticPodURL", fail);
  if (staticPodURL) result.staticPodURL = staticPodURL;
  const headers = headerMap(value.staticPodURLHeader, fail);
  if (headers) result.staticPodURLHeader = headers;
  const fileCheck = frequency(value, "fileCheckFrequency", "--file-check-frequency", fail);
  if (fileCheck !== undefined) result.fileCheckFrequencyMs = fileCheck;
  const httpCheck = frequency(value, "httpCheckFrequency", "--http-check-frequency", fail);
  if (httpCheck !== undefined) result.httpCheckFrequencyMs = httpCheck;
  return result;
}

type Fail = (detail: string) => KubeletConfigError;

function optionalString(value: JsonObject, field: string, fail: Fail): string | undefined {
  const v = value[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw fail(`${field}: must be a string`);
  return v;
}

/** A metav1.Duration: a Go duration string; the kubelet refuses negative check frequencies. */
function frequency(value: JsonObject, field: string, flag: string, fail: Fail): number | undefined {
  const v = optionalString(value, field, fail);
  if (v === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch (err) {
    if (err instanceof DurationError) throw fail(`${field}: ${err.message}`);
    throw err;
  }
  if (ms < 0)
    throw new KubeletConfigError(
      `invalid configuration: ${field} (${flag}) ${v} must not be a negative number`,
    );
  if (ms > MaxTimerMs)
    throw new KubeletConfigError(
      `invalid configuration: ${field} (${flag}) ${v} ${TooLongForATimer}`,
    );
  return ms;
}

/** map[string][]string; values are never quoted in errors (they are often credentials). */
function headerMap(raw: unknown, fail: Fail): HeaderMap | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw))
    throw fail("staticPodURLHeader: must be a map of header name to a list of values");
  const headers: HeaderMap = new Map();
  for (const [name, values] of Object.entries(raw)) {
    if (!Array.isArray(values) || !values.every((v) => typeof v === "string"))
      throw fail(`staticPodURLHeader: the values of a header must be a list of strings`);
    headers.set(name, values);
  }
  try {
    validateHeaders(headers, "staticPodURLHeader");
  } catch (err) {
    if (err instanceof HeaderError) throw fail(err.message);
    throw err;
  }
  return headers;
}
