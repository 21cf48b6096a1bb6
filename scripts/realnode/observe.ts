// What each side shows: the real kubelet's /metrics (read with the admin client certificate,
// authorized by the API server through the kubelet's webhook), its log, and the exporter's
// /metrics; one sample value by name and labels, absent as undefined (never 0).
import { readFileSync } from "node:fs";
import https from "node:https";
import { type Exposition, parseExposition } from "../../src/kubelet/exposition.js";

export function sample(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const match = exposition.samples
    .get(name)
    ?.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return match?.value;
}

/** Sum over every sample of `name` whose labels include `labels`; undefined when none. */
export function sum(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const matches = (exposition.samples.get(name) ?? []).filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return matches.length === 0 ? undefined : matches.reduce((a, s) => a + s.value, 0);
}

export function readKubeletMetrics(
  url: string,
  client: { certFile: string; keyFile: string },
): Promise<Exposition> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        cert: readFileSync(client.certFile),
        key: readFileSync(client.keyFile),
        // The kubelet's own self-signed certificate: this reader checks the kubelet, not its
        // certificate (the exporter's cross-check verifies it).
        rejectUnauthorized: false,
        timeout: 30_000,
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => {
          if (response.statusCode !== 200)
            reject(new Error(`kubelet /metrics: ${response.statusCode} ${body.slice(0, 200)}`));
          else resolve(parseExposition(body));
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("kubelet /metrics timed out")));
    req.on("error", reject);
  });
}

export async function readExporterMetrics(url: string): Promise<Exposition> {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`exporter /metrics: ${response.status}`);
  return parseExposition(await response.text());
}
