// The package's second entry point, `podconfig-exporter/sources`: the pod config sources that
// feed a PodConfig channel with SET snapshots as the kubelet's do. A subpath, because the root
// exports the source names FileSource and HTTPSource ("file", "http") as the core's contract.
// Importing it loads no heavy package: the api source's kubeconfig loader and credentials are
// our own (src/sources/api/kubeconfig*.ts, exec_credential.ts), on `yaml` alone.
export { ApiSource, type ApiSourceOptions } from "./api/api.js";
export type { BackoffOptions } from "./api/backoff.js";
export { type KubeConfigSource, loadKubeConfig } from "./api/kubeconfig.js";
export { DefaultFileCheckFrequencyMs, FileSource, type FileSourceOptions } from "./file/file.js";
export {
  type SourceError,
  type SourceErrorReason,
  SourceErrorReasons,
  SourceHealth,
} from "./health.js";
export type { HeaderMap } from "./http/headers.js";
export { DefaultHTTPCheckFrequencyMs, HTTPSource, type HTTPSourceOptions } from "./http/http.js";
export type { PodSource } from "./source.js";
