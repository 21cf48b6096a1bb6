// `podconfig-exporter explain`, run in the test's process: the bundled kubeadm control-plane
// manifests pass (exit 0); the hostile directory fails (exit 1) with the kubelet's exact errors,
// the .bak copy shadowing the real manifest and the dotfile ignored; a URL body on stdin (once
// through the real command, spawned with tsx: its stdin, stdout and exit code); JSON output; a
// usage error exits 2. (The same verdicts are compared with the kubelet's own code in
// test/differential.)
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Explanation } from "../../src/cli/explain.js";
import { ended, runHere, spawnCommand } from "../support/command.js";
import { hostileFiles, writeHostileDirectory } from "../support/hostile_directory.js";

const run = (args: string[], stdin = "") => runHere(["explain", ...args], { stdin });

const json = (stdout: string) => JSON.parse(stdout) as Explanation;

describe("podconfig-exporter explain", () => {
  test("kubeadm's control-plane manifests (examples/manifests) pass, for 1.32 and 1.37", async () => {
    for (const version of ["1.32", "1.37"]) {
      const out = await run([
        `--kubelet.version=${version}`,
        "--node-name=cp-1",
        "--output=json",
        "examples/manifests",
      ]);
      assert.equal(out.code, 0, out.stderr);
      const e = json(out.stdout);
      assert.equal(e.passes, true);
      assert.equal(e.kubeletVersion, version);
      assert.deepEqual(
        e.manifests.map((m) => [m.verdict, m.pod?.fullName]),
        [
          ["stored", "etcd-cp-1_kube-system"],
          ["stored", "kube-apiserver-cp-1_kube-system"],
          ["stored", "kube-controller-manager-cp-1_kube-system"],
          ["stored", "kube-scheduler-cp-1_kube-system"],
        ],
      );
    }
  });

  test("the hostile directory fails with the exact errors, the shadowing copy and the ignored entries", async () => {
    const dir = await writeHostileDirectory();
    try {
      const text = await run(["--kubelet.version=1.37", "--node-name=node-a", dir]);
      assert.equal(text.code, 1, text.stderr);
      const lines = text.stdout.split("\n");
      assert.equal(lines[0], `kubelet 1.37, node node-a, manifest path ${dir}`);
      const expected = [
        `REFUSED   ${join(dir, "bad-1.yaml")}`,
        `          ${join(dir, "bad-1.yaml")}: couldn't parse as pod(quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'), please check config file`,
        `REFUSED   ${join(dir, "bad-2.yaml")}`,
        `          invalid pod: [spec.containers[0].resources.requests: Invalid value: "200m": must be less than or equal to cpu limit of 100m]`,
        `REFUSED   ${join(dir, "bad-3.yaml")}`,
        `          invalid pod: [spec.volumes[0].hostPath.path: Invalid value: "/var/../etc": must not contain '..']`,
        `REFUSED   ${join(dir, "bad-4.yaml")}`,
        `          invalid pod: [spec.containers[0].image: Invalid value: " nginx:1.27": must not have leading or trailing whitespace]`,
      ];
      assert.deepEqual(lines.slice(1, 9), expected);
      assert.match(
        lines[9] ?? "",
        /^DUPLICATE .*\/web\.yaml pod web-node-a_kube-system uid [0-9a-f]{32}$/,
      );
      assert.equal(lines[10], `          shadowed by ${join(dir, "web.yaml.bak")}`);
      assert.equal(lines[11], `IGNORED   ${join(dir, ".web.yaml.swp")}`);
      assert.equal(lines[13], `IGNORED   ${join(dir, "old")}`);
      assert.match(
        lines[15] ?? "",
        /^STORED {4}.*\/web\.yaml\.bak pod web-node-a_kube-system uid [0-9a-f]{32}$/,
      );
      assert.equal(
        lines[16],
        "4 refused, 1 duplicate, 2 ignored, 1 stored: FAILS (refused or shadowed manifests)",
      );

      const out = await run(["--kubelet.version=1.32", "--node-name=node-a", "-o", "json", dir]);
      assert.equal(out.code, 1);
      const e = json(out.stdout);
      assert.equal(e.passes, false);
      assert.deepEqual(
        e.manifests.map((m) => [m.manifest.slice(dir.length + 1), m.verdict, m.category]),
        [
          ["bad-1.yaml", "refused", "parse"],
          ["bad-2.yaml", "refused", "invalid"],
          ["bad-3.yaml", "refused", "invalid"],
          ["bad-4.yaml", "refused", "invalid"],
          ["web.yaml", "duplicate", "duplicate"],
          [".web.yaml.swp", "ignored", undefined],
          ["old", "ignored", undefined],
          ["web.yaml.bak", "stored", undefined],
        ],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a URL body on stdin: a list with a repeated name fails (exit 1 from the process), the first pod held", async () => {
    const pod = (image: string) =>
      `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"w","image":"${image}"}]}}`;
    const body = `{"apiVersion":"v1","kind":"PodList","items":[${pod("a:1")},${pod("b:1")}]}`;
    const args = ["--node-name=node-a", "--manifest-url=http://cfg/m", "-o", "json", "-"];
    const out = await ended(spawnCommand(["explain", ...args], { stdin: body }));
    assert.equal(out.code, 1, out.stderr);
    assert.deepEqual(
      json(out.stdout).manifests.map((m) => [m.manifest, m.verdict, m.winner]),
      [
        ["http://cfg/m items[1]", "duplicate", "http://cfg/m items[0]"],
        ["http://cfg/m items[0]", "stored", undefined],
      ],
    );
    const valid = await run(["--node-name=node-a", "-"], hostileFiles.get("web.yaml"));
    assert.equal(valid.code, 0, valid.stdout);
    assert.match(valid.stdout, /^STORED {4}stdin pod web-node-a_kube-system uid [0-9a-f]{32}$/m);
  });

  test("--compare-to: what changing the kubelet's minor does to each static pod", async () => {
    // 1.35 hashes static pods with FNV-128a where 1.34 used MD5: every UID changes.
    const across = await run([
      "--kubelet.version=1.34",
      "--compare-to=1.35",
      "--node-name=cp-1",
      "examples/manifests",
    ]);
    assert.equal(across.code, 0, across.stderr);
    const lines = across.stdout.split("\n");
    assert.ok(lines.includes("kubelet 1.34 -> 1.35:"), across.stdout);
    assert.match(
      across.stdout,
      /^RESTARTED examples\/manifests\/etcd\.yaml pod etcd-cp-1_kube-system uid [0-9a-f]{32} -> [0-9a-f]{32}$/m,
    );
    assert.match(across.stdout, /^4 stored; upgrade to 1\.35: 4 restarted: passes$/m);
    const same = json(
      (
        await run([
          "--kubelet.version=1.37",
          "--compare-to=1.37",
          "--node-name=cp-1",
          "-o",
          "json",
          "examples/manifests",
        ])
      ).stdout,
    );
    assert.deepEqual(
      same.upgrade?.changes.map((c) => [c.effect, c.uid === c.uidAfter]),
      Array.from({ length: 4 }, () => ["kept", true]),
    );
    // A manifest refused after the change stops its pod, and fails the run: hostnameOverride
    // is a field from 1.34, validated as a DNS subdomain; 1.33 drops it as unknown.
    const dir = await mkdtemp(join(tmpdir(), "explain-upgrade-"));
    try {
      await writeFile(
        join(dir, "override.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: override}\nspec:\n  hostnameOverride: bad_name!\n  containers: [{name: app, image: nginx:1.27}]\n",
      );
      const stops = await run([
        "--kubelet.version=1.33",
        "--compare-to=1.34",
        "--node-name=n",
        dir,
      ]);
      assert.equal(stops.code, 1, stops.stderr);
      assert.match(
        stops.stdout,
        /^STOPPED {3}\S+override\.yaml pod override-n_default\n {10}refused at 1\.34: invalid pod: \[spec\.hostnameOverride: /m,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("usage errors exit 2", async () => {
    const missing = await run(["/nonexistent/manifests"]);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /^podconfig-exporter explain: cannot read \/nonexistent\/manifests: /,
    );
    const version = await run(["--kubelet.version=1.20", "examples/manifests"]);
    assert.equal(version.code, 2);
    assert.match(version.stderr, /--kubelet\.version/);
    const compare = await run(["--compare-to=2.0", "examples/manifests"]);
    assert.equal(compare.code, 2);
    assert.match(compare.stderr, /--compare-to: kubelet version "2\.0"/);
  });
});
