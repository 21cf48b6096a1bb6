// kubectl against the real node's API server, as the admin the e2e tests act as.
import { execFileSync } from "node:child_process";

/** kubectl with `kubeconfig`: its stdout, trimmed; a non-zero exit throws. */
export function kubectlWith(kubeconfig: string): (args: string[], input?: string) => string {
  return (args, input) =>
    execFileSync("kubectl", [`--kubeconfig=${kubeconfig}`, ...args], {
      encoding: "utf8",
      input,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: 60_000,
    }).trim();
}
