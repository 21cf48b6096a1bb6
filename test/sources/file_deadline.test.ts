import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FsDeadline, StuckCallError } from "../../src/sources/file/deadline.js";
import { WatchBackoff } from "../../src/sources/file/watch_backoff.js";
import { waitFor } from "../support/liveness.js";

describe("file-system deadline", () => {
  let dir: string;
  let fifo: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "fs-deadline-"));
    fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  // A blocking open() of a FIFO with no writer is a real call that never returns by itself,
  // as a read on a hung NFS mount does.
  const blockingOpen = async () => {
    const handle = await open(fifo, constants.O_RDONLY);
    await handle.close();
  };
  const unblock = async () => (await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).close();

  test("a call stuck past the deadline fails; the path refuses new calls until it returns", async () => {
    const fs = new FsDeadline(50, new AbortController().signal);
    await assert.rejects(fs.run(fifo, blockingOpen), (err: Error) => {
      return (
        err instanceof StuckCallError && /no answer from .*fifo within 50 ms/.test(err.message)
      );
    });
    let ran = false;
    await assert.rejects(
      fs.run(fifo, async () => {
        ran = true;
      }),
      /an earlier call on .*fifo has still not returned/,
    );
    assert.equal(ran, false, "no second call is made on a stuck path");
    assert.equal(await fs.run(dir, async () => "other paths go on"), "other paths go on");
    await unblock();
    await waitFor(() => {
      void fs
        .run(fifo, async () => {
          ran = true;
        })
        .catch(() => {});
      return ran;
    }, "the path to take calls again once the stuck one returned");
  });

  test("stopping fails the calls waited on at once", async () => {
    const stopping = new AbortController();
    const fs = new FsDeadline(3_600_000, stopping.signal);
    const call = fs.run(fifo, blockingOpen);
    stopping.abort();
    await assert.rejects(call, /the source is stopping/);
    await assert.rejects(
      fs.run(dir, async () => {}),
      /the source is stopping/,
    );
    await unblock();
  });
});

describe("watch backoff (client-go flowcontrol.Backoff)", () => {
  test("1 s doubling to 20 s, forgotten after twice the maximum", () => {
    const backoff = new WatchBackoff(1000, 20_000);
    assert.equal(backoff.isInBackOffSinceUpdate(0), false);
    backoff.next(0);
    assert.equal(backoff.isInBackOffSinceUpdate(999), true);
    assert.equal(backoff.isInBackOffSinceUpdate(1000), false);
    const delays: number[] = [];
    let now = 1000;
    for (let i = 0; i < 6; i++) {
      backoff.next(now);
      let wait = 0;
      while (backoff.isInBackOffSinceUpdate(now + wait)) wait += 100;
      delays.push(wait);
      now += wait;
    }
    assert.deepEqual(delays, [2000, 4000, 8000, 16_000, 20_000, 20_000]);
    backoff.next(now);
    assert.equal(backoff.isInBackOffSinceUpdate(now + 40_001), false, "expired");
    backoff.next(now + 40_001);
    assert.equal(backoff.isInBackOffSinceUpdate(now + 40_001 + 1000), false, "back to 1 s");
  });
});
