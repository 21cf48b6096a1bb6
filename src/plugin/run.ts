// kubectl-podconfig, the kubectl plugin (`kubectl podconfig ...`): parses the command, reads
// the cluster with the user's kubeconfig, prints, and answers with an exit status a script can
// use (usage.ts's ExitStatus).
import { buildInfo } from "../cli/build_info.js";
import { explanationText } from "../cli/explain.js";
import { UsageError as ExplainUsageError } from "../cli/flags.js";
import { ApiClient } from "../sources/api/client.js";
import { type Command, parseCommand, UsageError } from "./args.js";
import { ClusterReader, ReadError } from "./cluster.js";
import { explainForNode, explainNode, nodeExplanationText } from "./explain.js";
import { KubeConfigError, loadUserKubeConfig } from "./kubeconfig.js";
import { statusTable, structured } from "./output.js";
import { hasProblem, nodeReports } from "./status.js";
import { ExplainHelp, RootHelp, StatusHelp } from "./usage.js";

export const ExitOK = 0;
export const ExitProblem = 1;
export const ExitUsage = 2;
export const ExitIncomplete = 3;

export interface PluginIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

export async function runPlugin(argv: readonly string[], io: PluginIO): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`error: ${err.message}\nSee 'kubectl podconfig --help' for usage.\n`);
    return ExitUsage;
  }
  if (command.kind === "help") {
    io.stdout(
      command.topic === "status"
        ? StatusHelp
        : command.topic === "explain"
          ? ExplainHelp
          : RootHelp,
    );
    return ExitOK;
  }
  if (command.kind === "version") {
    const build = buildInfo(io.env);
    io.stdout(`kubectl-podconfig ${build.version} (revision ${build.revision})\n`);
    return ExitOK;
  }
  const { common } = command;
  const stopping = new AbortController();
  try {
    const loaded = await loadUserKubeConfig(common.kubeconfig, common.context, io.env);
    const cluster = new ClusterReader(
      new ApiClient(loaded.kubeConfig, "kubectl-podconfig"),
      common.timeoutMs,
      stopping.signal,
    );
    const namespace = common.namespace;
    if (command.kind === "status") {
      const reports = await nodeReports(cluster, {
        namespace,
        selector: common.selector,
        scheme: common.scheme,
        concurrency: command.concurrency,
        nodes: command.nodes,
      });
      if (common.output === "json" || common.output === "yaml")
        io.stdout(structured({ nodes: reports }, common.output));
      else if (reports.length === 0) io.stderr("No nodes found.\n");
      else io.stdout(statusTable(reports, common.output === "wide"));
      const unreachable = reports.filter((r) => !r.reachable);
      for (const r of unreachable) io.stderr(`node ${r.node}: exporter not read: ${r.error}\n`);
      if (reports.some(hasProblem)) return ExitProblem;
      return unreachable.length > 0 ? ExitIncomplete : ExitOK;
    }
    if (command.kind === "explain-node") {
      const explanation = await explainNode(cluster, command.node, {
        namespace,
        selector: common.selector,
        scheme: common.scheme,
      });
      io.stdout(
        common.output === "table"
          ? nodeExplanationText(explanation)
          : structured(explanation, common.output as "json" | "yaml"),
      );
      return explanation.passes ? ExitOK : ExitProblem;
    }
    const { explanation, kubeletVersion } = await explainForNode(
      cluster,
      command.file,
      command.node,
      io.stdin,
      command.manifestURL,
    );
    io.stdout(
      common.output === "table"
        ? `node ${command.node} runs kubelet ${kubeletVersion}\n${explanationText(explanation)}`
        : structured(
            { ...explanation, nodeKubeletVersion: kubeletVersion },
            common.output as "json" | "yaml",
          ),
    );
    return explanation.passes ? ExitOK : ExitProblem;
  } catch (err) {
    if (err instanceof ExplainUsageError) {
      io.stderr(`error: ${err.message}\n`);
      return ExitUsage;
    }
    // What could not be read (the kubeconfig, a list, a node): said, never a stack.
    if (err instanceof ReadError || err instanceof KubeConfigError) {
      io.stderr(`error: ${err.message}\n`);
      return ExitIncomplete;
    }
    throw err;
  } finally {
    stopping.abort();
  }
}
