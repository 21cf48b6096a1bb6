// npm's pretest: makes sure the programs the tests run (Prometheus, promtool, Alertmanager,
// amtool, Chromium, jsonnet) are installed and helm, jb and go-jsonnet are built
// (scripts/helm.ts, scripts/jsonnet_tools.ts), so `npm test` on a fresh Debian machine runs every
// test instead of failing seven with ENOENT. As root with apt it installs Debian's packages;
// anyone else is stopped at once with the one command to run. Nothing is ever skipped.
// --dry-run (or PODCONFIG_PROVISION_DRY_RUN=1) prints the plan and changes nothing.
import { spawnSync } from "node:child_process";
import { ensureHelm } from "./helm.js";
import { ensureGoJsonnet, ensureJsonnetBundler } from "./jsonnet_tools.js";
import { describeMissing, findOnPath, missingTools, planProvisioning } from "./test_tools.js";

const dryRun =
  process.argv.includes("--dry-run") || process.env.PODCONFIG_PROVISION_DRY_RUN === "1";
const path = process.env.PATH;

function provision(): number {
  const missing = missingTools(path);
  const plan = planProvisioning(missing, {
    isRoot: process.getuid?.() === 0,
    hasApt: findOnPath("apt-get", path) !== undefined,
  });
  if (plan.kind === "ready") return 0;
  const lines = ["npm test needs programs that are not installed:", ...describeMissing(missing)];
  if (plan.kind === "instruct") {
    lines.push("Install them with:", `  ${plan.command}`, "then run npm test again.");
    process.stderr.write(`${lines.join("\n")}\n`);
    return 1;
  }
  lines.push(`Installing Debian's ${plan.packages.join(", ")} (running as root with apt):`);
  process.stderr.write(`${lines.join("\n")}\n`);
  for (const [command, ...args] of plan.commands) {
    process.stderr.write(
      `  ${dryRun ? "would run" : "running"}: ${[command, ...args].join(" ")}\n`,
    );
    if (dryRun) continue;
    const result = spawnSync(command as string, args, {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (result.status !== 0) {
      process.stderr.write(`${command} ${args.join(" ")} failed (exit ${result.status})\n`);
      return 1;
    }
  }
  if (dryRun) return 0;
  const still = missingTools(path);
  if (still.length === 0) return 0;
  process.stderr.write(
    `${["still missing after the install:", ...describeMissing(still)].join("\n")}\n`,
  );
  return 1;
}

process.exitCode = provision();
// helm, which three test files run, and the jsonnet tools, built here once (a cold build of helm
// takes minutes) rather than by whichever test asks first while the others wait on its lock.
if (process.exitCode === 0 && !dryRun) {
  ensureHelm();
  ensureJsonnetBundler();
  ensureGoJsonnet();
}
