// Bytes -> plain JSON-like value, the way the kubelet's utilyaml.ToJSON (sigs.k8s.io/yaml over
// go-yaml v2) reads a manifest or a KubeletConfiguration: YAML 1.1, JSON being a subset.
import { parseAllDocuments, type Tags } from "yaml";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * go-yaml v2 resolves YAML 1.1 booleans (yes/on) and octals (0644, common in `defaultMode`),
 * but keeps timestamps as strings and knows no sexagesimal numbers: drop those two tags.
 */
function goYamlTags(tags: Tags): Tags {
  return tags.filter((tag) => {
    const t = tag as { tag: string; format?: string };
    return t.tag !== "tag:yaml.org,2002:timestamp" && t.format !== "TIME";
  });
}

/**
 * Parses JSON or YAML. Like go-yaml, only the first YAML document counts. An empty document is
 * `null`. Throws an Error with a one-line message on invalid UTF-8 or syntax.
 */
export function parseYamlOrJson(data: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(data);
  } catch {
    throw new Error("not valid UTF-8");
  }
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch {
      // Not strict JSON: YAML flow syntax may still read it, as it does for the kubelet.
    }
  }
  const [doc] = parseAllDocuments(text, { version: "1.1", customTags: goYamlTags });
  if (!doc) return null;
  const [error] = doc.errors;
  if (error) throw new Error(firstLine(error.message));
  return doc.toJS({ maxAliasCount: 100 });
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/:$/, "");
}
