// Validates Kubernetes objects without a cluster, against the schemas of two packages:
// kubernetes-models (the Kubernetes API's OpenAPI schemas) and @kubernetes-models/prometheus-operator
// (the monitoring.coreos.com CRDs' schemas). Their validate() checks types, enums, required
// fields and formats, but, like the OpenAPI documents, allows fields it does not know; the API
// server rejects those (kubectl apply --validate=strict, the default). So each object is also
// type-checked, as an object literal, against the same package's TypeScript interface, whose
// excess-property check names every unknown field.
import { join } from "node:path";
import ts from "typescript";
import { repoRoot } from "../../scripts/render_deploy.js";

// biome-ignore lint/suspicious/noExplicitAny: objects come from YAML and are checked here.
export type KubeObject = any;

interface Model {
  new (data: unknown): { validate(): void };
}

/** The package module of a kind, e.g. kubernetes-models/apps/v1/DaemonSet. */
function modelModule(apiVersion: string, kind: string): string {
  if (apiVersion.startsWith("monitoring.coreos.com/"))
    return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

function describeObject(o: KubeObject): string {
  return `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name}`;
}

/** Schema errors of each object, "<Kind> <ns>/<name>: <errors>"; empty when all are valid. */
export async function schemaErrors(objects: readonly KubeObject[]): Promise<string[]> {
  const errors: string[] = [];
  for (const o of objects) {
    let model: Model;
    try {
      model = Object.values(await import(modelModule(o.apiVersion, o.kind)))[0] as Model;
    } catch {
      errors.push(`${describeObject(o)}: no schema for ${o.apiVersion} ${o.kind}`);
      continue;
    }
    try {
      new model(o).validate();
    } catch (err) {
      errors.push(`${describeObject(o)}: ${(err as Error).message}`);
    }
  }
  return [...errors, ...unknownFieldErrors(objects)];
}

/**
 * The packages' and TypeScript's own declaration files, parsed once per test process: they never
 * change during a run, and parsing them again for every call (each case of the chart, each
 * overlay) was most of the CPU time of the chart and deploy tests. Each call still type-checks
 * its objects in a program of its own.
 */
const parsedDeclarations = new Map<string, ts.SourceFile>();

/** Fields the schema does not define, found by TypeScript's excess-property check. */
function unknownFieldErrors(objects: readonly KubeObject[]): string[] {
  // A file that is never written: a path inside the repository, so the packages resolve.
  const file = join(repoRoot, "test", "observability", "__objects_under_test__.ts");
  const text = objects
    .map(
      (o, i) =>
        `import type { I${o.kind} as T${i} } from ${JSON.stringify(modelModule(o.apiVersion, o.kind))};\n` +
        `export const o${i}: T${i} = ${JSON.stringify(o)};\n`,
    )
    .join("");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    if (name === file) return ts.createSourceFile(name, text, language);
    let parsed = parsedDeclarations.get(name);
    if (!parsed) {
      parsed = getSourceFile.call(host, name, language, ...rest);
      if (parsed) parsedDeclarations.set(name, parsed);
    }
    return parsed;
  };
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? text : readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, " ");
    if (d.file?.fileName !== file || d.start === undefined) return message;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line;
    return `${describeObject(objects[Math.floor(line / 2)])}: ${message}`;
  });
}
