import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rename, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, beforeEach, describe, test } from "node:test";
import { systemClock } from "../../src/core/deps.js";
import type { PodUpdate } from "../../src/core/types.js";
import { FileSource, type FileSourceOptions } from "../../src/sources/file/file.js";
import { ManifestDecoder } from "../../src/sources/manifest/decoder.js";
import { LivenessBoundMs, waitFor } from "../support/liveness.js";
import { RecordingLogger, UpdateRecorder } from "../support/update_recorder.js";

const podYaml = (name: string, image = "busybox") =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [{name: app, image: "${image}"}]\n`;

describe("file source", () => {
  // One warm decoding thread for every test: each source would start its own.
  const decoder = new ManifestDecoder();
  after(() => decoder.close());
  let dir: string;
  let recorder: UpdateRecorder;
  let logger: RecordingLogger;
  let source: FileSource | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "file-source-"));
    recorder = new UpdateRecorder();
    logger = new RecordingLogger();
  });

  afterEach(async () => {
    await source?.stop();
    source = undefined;
    assert.ok(recorder.maxInFlight <= 1, "two sends were in flight at once");
    await rm(dir, { recursive: true, force: true });
  });

  // A period far beyond any test: whatever arrives without syncOnce() came from the watch.
  const create = (options: Partial<FileSourceOptions> = {}) => {
    source = new FileSource({
      channel: recorder,
      nodeName: "node-a",
      logger,
      clock: systemClock,
      path: dir,
      fileCheckFrequencyMs: 3_600_000,
      decoder,
      ...options,
    });
    return source;
  };

  const firstImage = () =>
    (recorder.last()?.pods[0]?.spec?.containers as { image: string }[] | undefined)?.[0]?.image;

  const lastNamesAre = (names: string[]) => () =>
    JSON.stringify(recorder.lastNames()) === JSON.stringify(names);

  test("lists the pods already there, sorted by file name, as one SET", async () => {
    await writeFile(join(dir, "b.yaml"), podYaml("beta"));
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    const s = create();
    s.start();
    await waitFor(() => recorder.updates.length > 0, "the first SET");
    const update = recorder.updates[0];
    assert.equal(update?.op, "SET");
    assert.equal(update?.source, "file");
    assert.deepEqual(recorder.lastNames(), ["alpha-node-a", "beta-node-a"]);
    assert.deepEqual(update?.pods[0]?.spec?.tolerations, [
      { operator: "Exists", effect: "NoExecute" },
    ]);
    assert.notEqual(s.health.lastSuccessAt, null);
    assert.equal(s.health.errors.size, 0);
  });

  test("out of file descriptors, a relist is abandoned: nothing sent, no pod removed", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("a"));
    await writeFile(join(dir, "b.yaml"), podYaml("b"));
    const s = create();
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["a-node-a", "b-node-a"]);
    const sent = recorder.updates.length;
    // This process's soft limit lowered to the descriptors it holds: every open is EMFILE. The
    // helper that restores it is started before: restoring must not need a descriptor.
    const soft = execFileSync("prlimit", [
      `--pid=${process.pid}`,
      "--nofile",
      "-o",
      "SOFT",
      "--noheadings",
    ])
      .toString()
      .trim();
    const restore = spawn("sh", ["-c", `read go; prlimit --pid=${process.pid} --nofile=${soft}:`], {
      stdio: ["pipe", "ignore", "inherit"],
    });
    // An open takes the lowest free number: below a limit of that number, none is left.
    const lowestFree = openSync("/dev/null", "r");
    closeSync(lowestFree);
    execFileSync("prlimit", [`--pid=${process.pid}`, `--nofile=${lowestFree}:`]);
    try {
      await s.syncOnce();
    } finally {
      restore.stdin.end("go\n");
      await once(restore, "exit");
    }
    assert.equal(
      recorder.updates.length,
      sent,
      `no SET sent: ${JSON.stringify(recorder.lastNames())} ${s.health.lastError?.message}`,
    );
    assert.deepEqual(recorder.lastNames(), ["a-node-a", "b-node-a"]);
    assert.match(s.health.lastError?.message ?? "", /abandoned: .*EMFILE/);
  });

  test("an empty directory is an empty SET", async () => {
    await create().syncOnce();
    assert.deepEqual(recorder.updates, [{ op: "SET", source: "file", pods: [] }]);
  });

  test("create, modify, atomic rename-in and delete reach it through the watch", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    create().start();
    await waitFor(lastNamesAre(["alpha-node-a"]), "the initial pod");

    await writeFile(join(dir, "b.yaml"), podYaml("beta"));
    await waitFor(lastNamesAre(["alpha-node-a", "beta-node-a"]), "the created file");

    await writeFile(join(dir, "a.yaml"), podYaml("alpha", "nginx"));
    await waitFor(() => firstImage() === "nginx", "the modified file");

    await writeFile(join(dir, ".c.yaml.tmp"), podYaml("gamma"));
    await rename(join(dir, ".c.yaml.tmp"), join(dir, "c.yaml"));
    await waitFor(
      lastNamesAre(["alpha-node-a", "beta-node-a", "gamma-node-a"]),
      "the renamed-in file",
    );

    await unlink(join(dir, "a.yaml"));
    await waitFor(lastNamesAre(["beta-node-a", "gamma-node-a"]), "the deleted file gone");
  });

  test("dot files and sub-directories are ignored", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    await writeFile(join(dir, ".hidden.yaml"), podYaml("hidden"));
    await mkdir(join(dir, "sub"));
    await writeFile(join(dir, "sub", "nested.yaml"), podYaml("nested"));
    const s = create();
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["alpha-node-a"]);
    assert.ok(logger.lines.some((l) => l.message === "Not recursing into manifest path"));
    assert.equal(s.health.errors.size, 0);
  });

  test("an unparseable file is skipped, counted as decode, and the others stay", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    await writeFile(join(dir, "b.yaml"), "apiVersion: v1\nkind: [Pod\n");
    await writeFile(join(dir, "c.yaml"), podYaml("gamma"));
    const s = create();
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["alpha-node-a", "gamma-node-a"]);
    assert.equal(s.health.errors.get("decode"), 1);
    assert.match(s.health.lastError?.message ?? "", /b\.yaml: couldn't parse as pod/);
    assert.notEqual(s.health.lastSuccessAt, null);
    assert.ok(logger.lines.some((l) => l.level === "error" && /b\.yaml/.test(l.message)));
  });

  test("a relist reuses an unchanged file's decode (same pod, same error); a changed file is decoded again", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    await writeFile(join(dir, "b.yaml"), "apiVersion: v1\nkind: [Pod\n");
    // The pods as sent, not copies: a decode makes a new object off the decoding thread.
    const sent: PodUpdate[] = [];
    const s = create({ channel: { send: async (update) => void sent.push(update) } });
    const lastPod = () => sent.at(-1)?.pods[0];
    await s.syncOnce();
    const first = lastPod();
    await s.syncOnce();
    assert.equal(lastPod(), first);
    // The broken file still fails every relist, with the same error, as the kubelet's does.
    assert.equal(s.health.errors.get("decode"), 2);
    assert.match(s.health.lastError?.message ?? "", /b\.yaml: couldn't parse as pod/);
    await writeFile(join(dir, "a.yaml"), podYaml("alpha", "nginx"));
    await s.syncOnce();
    assert.notEqual(lastPod(), first);
    assert.equal(
      (lastPod()?.spec?.containers as { image: string }[] | undefined)?.[0]?.image,
      "nginx",
    );
    await writeFile(join(dir, "b.yaml"), podYaml("beta"));
    await s.syncOnce();
    assert.deepEqual(
      sent.at(-1)?.pods.map((pod) => pod.metadata.name),
      ["alpha-node-a", "beta-node-a"],
    );
    assert.equal(s.health.errors.get("decode"), 3, "b.yaml failed the first three relists");
  });

  test("a file nested deep enough to overflow the stack is skipped too; the others stay", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    await writeFile(
      join(dir, "b.json"),
      `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"},"spec":{"containers":[{"name":"app","image":"busybox"}],"x":${deep}}}`,
    );
    const s = create();
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["alpha-node-a"]);
    assert.equal(s.health.errors.get("decode"), 1);
    assert.equal(s.health.errors.get("read"), undefined);
    assert.match(s.health.lastError?.message ?? "", /b\.json: couldn't parse as pod/);

    // A cycle through a YAML alias, in a pod with a UID (so no hash walks it here).
    await writeFile(
      join(dir, "c.yaml"),
      `${podYaml("gamma")}  x: &x {y: *x}\nmetadata: {name: gamma, uid: u1}\n`.replace(
        "metadata: {name: gamma}\n",
        "",
      ),
    );
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["alpha-node-a"]);
    assert.equal(s.health.errors.get("decode"), 3);
    assert.match(s.health.lastError?.message ?? "", /c\.yaml: couldn't parse as pod/);
  });

  test("the same pod in two files: the later file wins, as in the kubelet's store", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("web", "one"));
    await writeFile(join(dir, "b.yaml"), podYaml("web", "two"));
    await create().syncOnce();
    assert.equal(recorder.last()?.pods.length, 1);
    assert.equal(firstImage(), "two");
  });

  test("a single file: an in-place edit is seen; an atomic replace removes the pod until the relist", async () => {
    const file = join(dir, "pod.yaml");
    await writeFile(file, podYaml("single"));
    const s = create({ path: file });
    s.start();
    await waitFor(lastNamesAre(["single-node-a"]), "the single pod");
    await writeFile(file, podYaml("single", "nginx"));
    await waitFor(() => firstImage() === "nginx", "the file edited in place");
    // The replaced inode's own delete event (IN_DELETE_SELF) is a podDelete of the path, and
    // fsnotify drops the watch with it: the kubelet removes the pod, and reads the new file at
    // its next relist.
    await writeFile(join(dir, "next.tmp"), podYaml("single", "redis"));
    await rename(join(dir, "next.tmp"), file);
    await waitFor(lastNamesAre([]), "the pod removed by the watched file's delete event");
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["single-node-a"]);
    assert.equal(firstImage(), "redis");
  });

  test("a single file that never parses sends no update at all", async () => {
    const file = join(dir, "pod.yaml");
    await writeFile(file, "kind: [");
    const s = create({ path: file });
    await s.syncOnce();
    await s.syncOnce();
    assert.equal(recorder.updates.length, 0);
    assert.equal(s.health.errors.get("decode"), 2);
    assert.equal(s.health.lastSuccessAt, null);
  });

  test("a missing path is an empty SET and a read error, and is picked up once created", async () => {
    const path = join(dir, "manifests");
    const s = create({ path, fileCheckFrequencyMs: 20 });
    s.start();
    await waitFor(() => recorder.updates.length > 0, "the empty SET");
    assert.deepEqual(recorder.updates[0]?.pods, []);
    assert.equal(s.health.errors.get("read") !== undefined, true);
    assert.match(s.health.lastError?.message ?? "", /does not exist/);
    assert.equal(s.health.lastSuccessAt, null);

    await mkdir(path);
    await writeFile(join(path, "a.yaml"), podYaml("alpha"));
    await waitFor(lastNamesAre(["alpha-node-a"]), "the pod in the created path");
    assert.notEqual(s.health.lastSuccessAt, null);
  });

  test("while the path is missing the watch loop sends an empty SET every retry period", async () => {
    const s = create({ path: join(dir, "missing"), watchRetryPeriodMs: 20 });
    s.start();
    // The relist period is an hour: these come from file_linux.go's doWatch, once a period.
    await waitFor(() => recorder.updates.length >= 4, "four empty SETs");
    assert.ok(recorder.updates.every((u) => u.op === "SET" && u.pods.length === 0));
    assert.ok((s.health.errors.get("read") ?? 0) >= 4);
    assert.equal(
      s.health.errors.get("watch"),
      undefined,
      "a missing path is retried without backoff",
    );
  });

  test("a directory created later is watched within a retry period, without a relist", async () => {
    const path = join(dir, "later");
    const s = create({ path, watchRetryPeriodMs: 20 });
    s.start();
    await waitFor(() => recorder.updates.length > 0, "the empty SET of the missing path");
    await mkdir(path);
    // What the directory holds is read at the next relist (an hour away); files written once
    // the watch is there arrive as events. Keep writing until one does.
    const deadline = Date.now() + LivenessBoundMs;
    for (let i = 0; !recorder.lastNames()?.length; i++) {
      assert.ok(Date.now() < deadline, "no pod arrived through a watch on the new directory");
      await writeFile(join(path, `p${i}.yaml`), podYaml(`p${i}`));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(recorder.lastNames()?.at(-1) ?? "", /^p\d+-node-a$/);
  });

  test("a watched directory removed: its pods go with the deletes and the watch is dropped, as fsnotify drops it", async () => {
    const path = join(dir, "manifests");
    await mkdir(path);
    await writeFile(join(path, "a.yaml"), podYaml("alpha"));
    const s = create({ path });
    s.start();
    await waitFor(lastNamesAre(["alpha-node-a"]), "the first SET");
    await rm(path, { recursive: true });
    await waitFor(lastNamesAre([]), "the deleted file's pod removed through its event");
    await waitFor(
      () => logger.lines.some((l) => /no longer watched/.test(l.message)),
      "the watch dropped with the path",
    );
    // The kubelet's doWatch now waits forever on a watcher that watches nothing: the re-created
    // directory is read by the periodic relist only.
    await mkdir(path);
    await writeFile(join(path, "b.yaml"), podYaml("beta"));
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["beta-node-a"]);
  });

  test("a broken in-place edit keeps the old pod until the next relist", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    const s = create();
    s.start();
    await waitFor(lastNamesAre(["alpha-node-a"]), "the first SET");
    await writeFile(join(dir, "a.yaml"), "apiVersion: v1\nkind: [Pod\n");
    // The event for b.yaml is handled after a.yaml's: by then the broken edit was read.
    await writeFile(join(dir, "b.yaml"), podYaml("beta"));
    await waitFor(
      lastNamesAre(["alpha-node-a", "beta-node-a"]),
      "beta added beside the old alpha, which the failed read left in the store",
    );
    assert.ok((s.health.errors.get("decode") ?? 0) >= 1);
    await s.syncOnce();
    assert.deepEqual(recorder.lastNames(), ["beta-node-a"], "the relist skips the broken file");
  });

  test("a FIFO appearing in the directory is an error of that file; nothing waits on it", async () => {
    const s = create();
    s.start();
    await waitFor(() => recorder.updates.length > 0, "the first SET");
    execFileSync("mkfifo", [join(dir, "f.yaml")]);
    // Its create event reads it as the kubelet would (open, no stat first): an open() that
    // waited for a writer would hold up everything after it.
    await writeFile(join(dir, "b.yaml"), podYaml("beta"));
    await waitFor(lastNamesAre(["beta-node-a"]), "the file created after the FIFO");
    assert.ok((s.health.errors.get("read") ?? 0) >= 1);
    assert.match(s.health.lastError?.message ?? "", /f\.yaml: not a regular file/);
    await s.stop();
  });

  describe("a directory that exists but cannot be listed (EACCES)", () => {
    // Root reads any directory whatever its mode: the kubelet's EACCES needs a user the mode
    // applies to. Run as root (CI), the source's calls run with the effective user and group
    // of nobody; process-wide, so the libuv threads doing the calls are covered too.
    const unprivileged = async (run: () => Promise<void>) => {
      if (process.geteuid?.() !== 0) return run();
      process.setegid?.(65534);
      process.seteuid?.(65534);
      try {
        await run();
      } finally {
        process.seteuid?.(0);
        process.setegid?.(0);
      }
    };

    afterEach(() => chmod(dir, 0o700));

    test("at start: an empty SET, as the kubelet's glob ignores the error, counted", async () => {
      await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
      await chmod(dir, 0);
      const s = create();
      await unprivileged(() => s.syncOnce());
      assert.deepEqual(recorder.updates, [{ op: "SET", source: "file", pods: [] }]);
      assert.equal(s.health.errors.get("read"), 1);
      assert.match(s.health.lastError?.message ?? "", /unable to list .*EACCES/);
      assert.equal(s.health.lastSuccessAt, null, "not a successful list");
    });

    test("after a good list: every file pod is removed, and comes back when readable", async () => {
      await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
      const s = create();
      await s.syncOnce();
      assert.deepEqual(recorder.lastNames(), ["alpha-node-a"]);
      await chmod(dir, 0);
      await unprivileged(() => s.syncOnce());
      assert.deepEqual(recorder.lastNames(), []);
      assert.equal(s.health.errors.get("read"), 1);
      await chmod(dir, 0o700);
      await s.syncOnce();
      assert.deepEqual(recorder.lastNames(), ["alpha-node-a"]);
    });
  });

  test("syncOnce calls coalesce, and one made during a list runs after it, never alongside", async () => {
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    let during: Promise<void> | undefined;
    const s = create({
      channel: {
        send: async (update) => {
          // A request while this list is sending: it must wait for this send to finish.
          during ??= s.syncOnce();
          await recorder.send(update);
        },
      },
    });
    await Promise.all([s.syncOnce(), s.syncOnce(), s.syncOnce()]);
    assert.equal(recorder.updates.length, 1, "calls in the same tick join one list");
    await during;
    assert.equal(recorder.updates.length, 2, "the call made during the list ran afterwards");
    assert.equal(recorder.maxInFlight, 1);
  });

  test("after stop nothing more is listed", async () => {
    const s = create({ fileCheckFrequencyMs: 10 });
    s.start();
    await waitFor(() => recorder.updates.length > 0, "the first SET");
    await s.stop();
    const count = recorder.updates.length;
    await writeFile(join(dir, "a.yaml"), podYaml("alpha"));
    await s.syncOnce();
    assert.equal(recorder.updates.length, count);
  });
});
