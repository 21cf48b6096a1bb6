// --help in kubectl's own layout: a description, Examples, Options (`--flag=default:` then the
// help on a tab-indented line), Usage, and the pointer to the other commands' help.

export interface OptionHelp {
  short?: string;
  name: string;
  default: string;
  help: string;
}

export const ExitStatus = `Exit status:
  0  every node was read: all sources ready, nothing refused or shadowed, no disagreement
  1  a problem was found: a source not ready, a manifest refused or shadowed, the kubelet's
     cross-check disagreeing (explain: a manifest would be refused or shadowed)
  2  usage error
  3  not everything could be read: a node's exporter, a Node, or the API server`;

export const CommonOptions: OptionHelp[] = [
  {
    name: "kubeconfig",
    default: "''",
    help: "Path to the kubeconfig file to use; else $KUBECONFIG (merged), else ~/.kube/config.",
  },
  { name: "context", default: "''", help: "The name of the kubeconfig context to use." },
  {
    short: "n",
    name: "namespace",
    default: "''",
    help: "The namespace of the exporter's pods; all namespaces when not given.",
  },
  {
    short: "l",
    name: "selector",
    default: "'app.kubernetes.io/name=podconfig-exporter'",
    help: "Label selector of the exporter's pods (the chart's and deploy/'s label).",
  },
  {
    name: "exporter-scheme",
    default: "'http'",
    help: "http, or https for exporters serving TLS (--web.config.file). The pod proxy cannot pass basic auth.",
  },
  {
    name: "request-timeout",
    default: "'10s'",
    help: "How long one request (a list, or one exporter through the pod proxy) may take.",
  },
];

function options(list: readonly OptionHelp[]): string {
  return list
    .map((o) => {
      const flag = o.short ? `-${o.short}, --${o.name}` : `    --${o.name}`;
      return `    ${flag}=${o.default}:\n\t${o.help}`;
    })
    .join("\n\n");
}

export function commandHelp(parts: {
  description: string;
  examples: string;
  options: readonly OptionHelp[];
  usage: string;
}): string {
  return `${parts.description}

Examples:
${parts.examples}

Options:
${options([...parts.options, ...CommonOptions])}

${ExitStatus}

Usage:
  ${parts.usage}

Use "kubectl podconfig <command> --help" for more information about a given command.
`;
}

export const OutputOption: OptionHelp = {
  short: "o",
  name: "output",
  default: "''",
  help: "Output format. One of: (json, yaml, wide).",
};

export const RootHelp = `Pod source readiness of the kubelet on every node, as podconfig-exporter sees it: each
source's readiness, refused and shadowed static pod manifests, and the kubelet cross-check.
Each node's exporter is read through the API server's pod proxy with your kubeconfig.

Examples:
  # One line per node
  kubectl podconfig status

  # Why a node's static pods do not run: the kubelet's verdict on each manifest
  kubectl podconfig explain node-1

  # What node-1's kubelet would do with a manifest before it is copied there
  kubectl podconfig explain -f kube-apiserver.yaml --node node-1

Available Commands:
  explain     The kubelet's verdict on each static pod manifest of a node, or on a local file
  status      One line per node: source readiness, time to ready, refused and shadowed manifests
  version     Print the plugin's version

${ExitStatus}

Usage:
  kubectl podconfig [command] [options]

Use "kubectl podconfig <command> --help" for more information about a given command.
`;

export const StatusHelp = commandHelp({
  description: `Show, for every node (or the nodes named), what its podconfig-exporter sees: whether each
pod source (file, http, api) is ready, seconds from the kubelet's start to all sources ready
(the kubelet's own figure once the cross-check has measured it, else the exporter's copy's;
<= for an upper bound), refused and shadowed static pod manifests, and whether the kubelet cross-check agrees. Nodes whose exporter cannot be read
are shown as Unknown, and why is written to stderr.

 Needs list nodes, list pods (in --namespace, or all namespaces) and get pods/proxy.`,
  examples: `  # Every node
  kubectl podconfig status

  # Two nodes, with the exporter pod and the first problem of each
  kubectl podconfig status node-1 node-2 -o wide

  # For a script: the nodes with a problem
  kubectl podconfig status -o json | jq -r '.nodes[] | select(.ready == false) | .node'`,
  options: [
    {
      name: "concurrency",
      default: "16",
      help: "How many nodes' exporters are read at once.",
    },
    OutputOption,
  ],
  usage: "kubectl podconfig status [NODE...] [options]",
});

export const ExplainHelp = commandHelp({
  description: `Show the kubelet's verdict on each static pod manifest: stored (its pod's full name and
UID), refused (the kubelet's error text), duplicate (which manifest wins), ignored.

 explain NODE reads that node's exporter through the pod proxy. explain -f FILE --node NODE
decodes FILE (a manifest, a directory, or - for a manifest URL body on stdin) here, by the
rules of the kubelet version NODE reports (status.nodeInfo.kubeletVersion; needs get nodes),
before it is copied there.`,
  examples: `  # What node-1's kubelet does with the manifests it reads now
  kubectl podconfig explain node-1

  # Before copying a manifest to node-1's static pod directory
  kubectl podconfig explain -f kube-apiserver.yaml --node node-1`,
  options: [
    {
      short: "f",
      name: "filename",
      default: "''",
      help: "A manifest, a directory of them, or - (a manifest URL body on stdin) to explain locally.",
    },
    {
      name: "node",
      default: "''",
      help: "With -f: the node whose kubelet version and name apply.",
    },
    {
      name: "manifest-url",
      default: "''",
      help: "With -f -: the URL the body is served at (pod UIDs hash it).",
    },
    OutputOption,
  ],
  usage: "kubectl podconfig explain (NODE | -f FILENAME --node NODE) [options]",
});
