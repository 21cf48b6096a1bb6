// The programs the test suite runs besides Node, and what to do when some are missing: the
// decision is pure (which programs, root or not, apt or not -> a plan), so it is tested apart
// from the script that carries it out (provision-test-tools.ts, npm's pretest).
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export interface TestTool {
  /** The program, as the tests run it (Debian installs each in /usr/bin). */
  command: string;
  /** The Debian package that ships it. */
  debianPackage: string;
  /** Which tests need it, for the message when it is missing. */
  neededBy: string;
}

export const testTools: readonly TestTool[] = [
  {
    command: "promtool",
    debianPackage: "prometheus",
    neededBy: "rule, dashboard and exposition checks",
  },
  {
    command: "prometheus",
    debianPackage: "prometheus",
    neededBy: "the end-to-end scrape test",
  },
  {
    command: "amtool",
    debianPackage: "prometheus-alertmanager",
    neededBy: "the Alertmanager config and routing checks",
  },
  {
    command: "prometheus-alertmanager",
    debianPackage: "prometheus-alertmanager",
    neededBy: "the Alertmanager notification tests",
  },
  { command: "chromium", debianPackage: "chromium", neededBy: "the status page tests" },
  {
    command: "jsonnet",
    debianPackage: "jsonnet",
    neededBy: "the jsonnet mixin test (the C++ jsonnet users may run, on the default _config)",
  },
  {
    command: "openssl",
    debianPackage: "openssl",
    neededBy: "the TLS tests (certificates made at test time)",
  },
  {
    command: "stress-ng",
    debianPackage: "stress-ng",
    neededBy: "npm run test:busy (the suite while two CPU workers load the machine)",
  },
];

/** Where a command resolves on a PATH, as a shell would find it; undefined when nowhere. */
export function findOnPath(command: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export function missingTools(path: string | undefined): TestTool[] {
  return testTools.filter((tool) => findOnPath(tool.command, path) === undefined);
}

export type ProvisionPlan =
  | { kind: "ready" }
  /** Root with apt: install the packages, then check again. */
  | { kind: "install"; packages: string[]; commands: string[][] }
  /** Anyone else: stop at once and say the one command that fixes it. */
  | { kind: "instruct"; packages: string[]; command: string };

export interface Host {
  isRoot: boolean;
  hasApt: boolean;
}

export function planProvisioning(missing: readonly TestTool[], host: Host): ProvisionPlan {
  if (missing.length === 0) return { kind: "ready" };
  const packages = [...new Set(missing.map((tool) => tool.debianPackage))];
  if (host.isRoot && host.hasApt)
    return {
      kind: "install",
      packages,
      commands: [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", ...packages],
      ],
    };
  const sudo = host.isRoot ? "" : "sudo ";
  return {
    kind: "instruct",
    packages,
    command: `${sudo}apt-get update && ${sudo}apt-get install -y ${packages.join(" ")}`,
  };
}

/** One line per missing program: what it is for and where it comes from. */
export function describeMissing(missing: readonly TestTool[]): string[] {
  return missing.map(
    (tool) =>
      `  ${tool.command} (Debian package ${tool.debianPackage}), for ${tool.neededBy}: not on PATH`,
  );
}
