// npm run test:busy: the test suite while stress-ng keeps both cores busy, so that a
// test that holds only on an idle machine fails here rather than on a newcomer's laptop. The
// pretest (tools, oracles) runs first, unloaded; then `npm test`'s own command runs beside
// `stress-ng --cpu 2`, which is stopped when the suite ends and stops by itself after an hour.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { loadavg } from "node:os";

const loadNow = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

const pretest = spawnSync("npm", ["run", "pretest"], { stdio: "inherit" });
if (pretest.status !== 0) process.exit(pretest.status ?? 1);

// Its own process group, so its workers go with it.
const stress = spawn("stress-ng", ["--cpu", "2", "--timeout", "3600s", "--quiet"], {
  stdio: "inherit",
  detached: true,
});
await once(stress, "spawn");
const started = performance.now();
process.stderr.write(`test:busy: stress-ng --cpu 2 started; load average ${loadNow()}\n`);

const stopStress = () => {
  if (stress.exitCode === null && stress.pid !== undefined) process.kill(-stress.pid, "SIGTERM");
};
process.on("SIGINT", () => {
  stopStress();
  process.exit(130);
});

const suite = spawn("npm", ["run", "--ignore-scripts", "test"], { stdio: "inherit" });
const [code] = (await once(suite, "exit")) as [number | null];
const loadAtEnd = loadNow();
stopStress();
const seconds = Math.round((performance.now() - started) / 1000);
process.stderr.write(
  `test:busy: the suite ${code === 0 ? "passed" : `failed (exit ${code})`} in ${seconds} s beside stress-ng --cpu 2; load average at the end ${loadAtEnd}\n`,
);
process.exit(code ?? 1);
