// The file source's verdict on each entry of its path (../verdicts.ts), from what the source
// itself did: what a list or a watch event read and decoded, what the store holds, and which
// changes the watch reported that the source's loop has not read yet. The duplicate rule is
// therefore the kubelet's as it plays out: a relist replaces the store in byte order of the
// names, so the last file of a namespace/name wins (kube-apiserver.yaml.bak over
// kube-apiserver.yaml); a watch event adds the file it read over whatever held its key; a
// deleted file takes its key's pod away until the next relist stores another file's.
import type { Pod } from "../../core/types.js";
import {
  type ManifestFinding,
  manifestPod,
  refusalCategory,
  type VerdictBook,
} from "../verdicts.js";

export type FileState =
  | { kind: "pod"; pod: Pod; uidInexact?: string }
  | { kind: "refused"; text: string; read: boolean }
  | { kind: "ignored"; why: string }
  /** The path itself does not exist. */
  | { kind: "missing"; text: string };

export class FileManifests {
  private files = new Map<string, FileState>();
  /** The list in progress: what it has found so far, swapped in when it ends. */
  private listing: Map<string, FileState> | null = null;
  /** Paths with a watch event not consumed yet, and the event. */
  private readonly pending = new Map<string, string>();

  constructor(
    private readonly book: VerdictBook,
    /** The pod the store holds under this pod's namespace/name, if any. */
    private readonly held: (pod: Pod) => Pod | undefined,
  ) {}

  startList(): void {
    this.listing = new Map();
  }

  /** The list ended: its entries are the path's (an abandoned list changes nothing). */
  endList(completed: boolean): void {
    if (completed && this.listing) this.files = this.listing;
    this.listing = null;
    this.refresh();
  }

  /** The watch reported a change to `path` that the loop will read later. */
  reported(path: string, event: string): void {
    this.pending.set(path, event);
    this.refresh();
  }

  /** What reading `path` gave, by a list or by a watch event. */
  record(path: string, state: FileState): void {
    this.pending.delete(path);
    (this.listing ?? this.files).set(path, state);
    if (!this.listing) this.refresh();
  }

  /** A watch event read nothing decisive (the file is gone, or not one to read): the next list decides. */
  consumed(path: string, { deleted = false } = {}): void {
    this.pending.delete(path);
    if (deleted) this.files.delete(path);
    if (!this.listing) this.refresh();
  }

  /** The path is missing: nothing in it, and the path's own verdict says so. */
  missing(path: string, text: string): void {
    const only = new Map<string, FileState>([[path, { kind: "missing", text }]]);
    this.pending.clear();
    if (this.listing) this.listing = only;
    else {
      this.files = only;
      this.refresh();
    }
  }

  refresh(): void {
    const owners = new Map<Pod, string>();
    for (const [path, state] of this.files) if (state.kind === "pod") owners.set(state.pod, path);
    const findings: ManifestFinding[] = [];
    for (const [path, event] of this.pending)
      findings.push({
        manifest: path,
        verdict: "pending",
        reason: `the watch reported a ${event} not read yet`,
      });
    for (const [path, state] of this.files) {
      if (this.pending.has(path)) continue;
      findings.push(this.finding(path, state, owners));
    }
    this.book.set(findings);
  }

  private finding(path: string, state: FileState, owners: Map<Pod, string>): ManifestFinding {
    if (state.kind === "ignored") return { manifest: path, verdict: "ignored", reason: state.why };
    if (state.kind === "missing") return { manifest: path, verdict: "missing", reason: state.text };
    if (state.kind === "refused")
      return {
        manifest: path,
        verdict: "refused",
        reason: state.text,
        category: refusalCategory(state.read, state.text),
      };
    const pod = manifestPod(state.pod, state.uidInexact);
    const held = this.held(state.pod);
    if (held === state.pod) return { manifest: path, verdict: "stored", pod };
    const winner = held && owners.get(held);
    if (winner)
      return {
        manifest: path,
        verdict: "duplicate",
        pod,
        category: "duplicate",
        winner,
        reason: `${winner} holds ${pod.fullName}`,
      };
    return {
      manifest: path,
      verdict: "pending",
      pod,
      reason: "decoded but not held: the next relist stores it",
    };
  }
}
