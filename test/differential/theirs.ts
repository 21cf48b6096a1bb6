// The kubelet's side of a differential case: the oracle's answers (conformance/oracle/README.md,
// "Protocol") to the same inputs, in the shapes ours.ts gives for our side.
import type { GoPodForm, OpSequence } from "../support/merge_gen.js";
import type { EmittedUpdate } from "./compare.js";
import { NodeName } from "./ours.js";

export type OracleRequest = (request: Record<string, unknown>) => Promise<unknown>;

interface Sent {
  op?: string;
  source: string;
  pods: EmittedUpdate["pods"] | null;
}

const updates = (sent: Sent[] | null | undefined): EmittedUpdate[] =>
  (sent ?? []).map((u) => ({ op: u.op, source: u.source, pods: u.pods ?? [] }));

function checked<T>(answer: unknown, what: string): T {
  const error = (answer as { oracleError?: string } | null)?.oracleError;
  if (error) throw new Error(`oracle ${what}: ${error}`);
  return answer as T;
}

export interface TheirFileList {
  sent: EmittedUpdate[];
  /** Files the kubelet's list skipped, with its error text. */
  refused: Map<string, string>;
  listError: string | null;
}

/** The kubelet's listConfig of `path` on a fresh file source. */
export async function kubeletListFiles(
  request: OracleRequest,
  path: string,
): Promise<TheirFileList> {
  const answer = checked<{
    sent: Sent[] | null;
    errors: { path: string; error: string | null; msg: string }[] | null;
    listError: string | null;
  }>(await request({ cmd: "file", path, nodeName: NodeName }), `file ${path}`);
  const refused = new Map<string, string>();
  for (const e of answer.errors ?? []) refused.set(e.path, e.error ?? e.msg);
  return { sent: updates(answer.sent), refused, listError: answer.listError };
}

export interface TheirURLPoll {
  sent: EmittedUpdate[];
  error: string | null;
  /** The oracle's loopback URL, which keeps serving the body after the poll. */
  url: string;
}

/** One poll of the kubelet's http source, the oracle's own loopback server serving `body`. */
export async function kubeletPollURL(request: OracleRequest, body: Buffer): Promise<TheirURLPoll> {
  const answer = checked<{ sent: Sent[] | null; error: string | null; url: string }>(
    await request({ cmd: "url", bodyBase64: body.toString("base64"), nodeName: NodeName }),
    "url",
  );
  return { sent: updates(answer.sent), error: answer.error, url: answer.url };
}

export interface TheirMergeStep {
  emitted: EmittedUpdate[];
  storageSeen: Record<string, boolean>;
}

/** A fresh NewPodConfig of the oracle's version, the same sources and steps. */
export async function kubeletMerge(
  request: OracleRequest,
  sequence: OpSequence,
): Promise<TheirMergeStep[]> {
  const answer = checked<{
    steps: {
      emitted: Sent[] | null;
      storageSeen: Record<string, boolean>;
      mergeError: string | null;
    }[];
  }>(
    await request({
      cmd: "merge",
      mode: sequence.mode,
      sources: sequence.sources,
      steps: sequence.steps,
    }),
    "merge",
  );
  return answer.steps.map((step) => {
    if (step.mergeError) throw new Error(`oracle merge: ${step.mergeError}`);
    return { emitted: updates(step.emitted), storageSeen: step.storageSeen };
  });
}

/**
 * What the kubelet's hash.DeepHashObject writes for each pod of `body` (a Pod or a PodList, as
 * its legacy codec decodes it); null when the body does not decode.
 */
export async function kubeletHashDumps(
  request: OracleRequest,
  body: Buffer,
): Promise<string[] | null> {
  const answer = checked<{ dumps: string[] | null; error: string | null }>(
    await request({ cmd: "hashdump", bodyBase64: body.toString("base64") }),
    "hashdump",
  );
  return answer.error === null ? answer.dumps : null;
}

/** How the oracle's encoding/json writes a pod's unset fields (merge_gen.ts's GoPodForm). */
export async function kubeletPodForm(request: OracleRequest): Promise<GoPodForm> {
  const [step] = await kubeletMerge(request, {
    mode: "incremental",
    sources: ["api"],
    steps: [{ source: "api", op: "SET", pods: [{ metadata: { name: "p", uid: "u" } }] }],
  });
  const metadata = step?.emitted[0]?.pods[0]?.metadata as Record<string, unknown> | undefined;
  if (!metadata) throw new Error("oracle merge: no ADD for the form probe");
  return { nullCreationTimestamp: "creationTimestamp" in metadata };
}
