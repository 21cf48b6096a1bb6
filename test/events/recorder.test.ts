// The Event recorder's bounds (src/events/recorder.ts, correlation.ts), in simulated time: what
// it asks its sink to write for repeats, many notes, many objects, and for the faults an API
// server can answer with. The sink here records what it is asked and plays the faults; the
// writes themselves are checked against a real kube-apiserver in test/realnode/events.e2e.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { silentLogger } from "../../src/core/deps.js";
import { CombinedPrefix } from "../../src/events/correlation.js";
import {
  type EventRecord,
  type EventsV1Event,
  generateEventName,
  makeEvent,
  microTime,
  truncateBytes,
} from "../../src/events/event.js";
import { EventRecorder } from "../../src/events/recorder.js";
import { type EventSink, SinkError } from "../../src/events/sink.js";
import { SimTime, settle } from "../support/sim_time.js";

interface Call {
  verb: "create" | "patch";
  name: string;
  note: string;
  series?: { count: number };
}

/** Holds what was created, by name; `fault` may answer a call instead. */
class RecordingSink implements EventSink {
  readonly calls: Call[] = [];
  readonly stored = new Map<string, EventsV1Event>();
  fault: ((verb: "create" | "patch") => SinkError | "hang" | undefined) | undefined;

  private async answer(
    verb: "create" | "patch",
    event: EventsV1Event,
    signal: AbortSignal,
    patch?: string,
  ) {
    this.calls.push({
      verb,
      name: event.metadata.name,
      note: event.note,
      ...(patch ? { series: JSON.parse(patch).series } : {}),
    });
    const fault = this.fault?.(verb);
    if (fault === "hang")
      return new Promise<never>((_, reject) =>
        signal.addEventListener("abort", () => reject(new SinkError("aborted"))),
      );
    if (fault) throw fault;
    if (verb === "create") {
      if (this.stored.has(event.metadata.name)) throw new SinkError("exists", 409);
      this.stored.set(event.metadata.name, structuredClone(event));
    } else {
      const stored = this.stored.get(event.metadata.name);
      if (!stored) throw new SinkError("not found", 404);
      stored.series = JSON.parse(patch as string).series;
    }
    return structuredClone(event);
  }

  create(event: EventsV1Event, signal: AbortSignal) {
    return this.answer("create", event, signal);
  }

  patch(event: EventsV1Event, patch: string, signal: AbortSignal) {
    return this.answer("patch", event, signal, patch);
  }
}

const node = { apiVersion: "v1", kind: "Node", name: "node-1", uid: "u-1" };
const refused = (note = "file /m/a.yaml is refused: bad"): EventRecord => ({
  regarding: node,
  type: "Warning",
  reason: "StaticPodManifestRefused",
  action: "CheckStaticPodManifest",
  note,
});

function setup() {
  const time = new SimTime();
  const sink = new RecordingSink();
  const recorder = new EventRecorder({
    sink,
    reporting: { controller: "podconfig-exporter", instance: "node-1" },
    clock: time.clock,
    logger: silentLogger,
    sleep: time.sleep,
    random: () => 0.5,
  });
  recorder.start();
  return { time, sink, recorder };
}

describe("an Event as tools/events makes it", () => {
  test("named <regarding name>.<unix nanoseconds in hex>, in default for a Node, a MicroTime", () => {
    const whole = Date.UTC(2026, 0, 1, 12, 0, 0);
    const event = makeEvent(
      refused(),
      { controller: "podconfig-exporter", instance: "n" },
      whole + 0.125,
    );
    assert.equal(event.metadata.namespace, "default");
    assert.equal(
      event.metadata.name,
      `node-1.${(BigInt(whole) * 1_000_000n + 125_000n).toString(16)}`,
    );
    assert.equal(event.eventTime, "2026-01-01T12:00:00.000125Z");
    assert.equal(event.reportingController, "podconfig-exporter");
    assert.equal(event.series, undefined);
    assert.equal(microTime(Date.UTC(2026, 0, 1)), "2026-01-01T00:00:00.000000Z");
  });

  test("a name that is no object name becomes a UUID; a long note is cut to 1024 bytes", () => {
    assert.match(generateEventName("Not_A_Name", 1), /^[0-9a-f-]{36}$/);
    const note = "é".repeat(2000);
    const cut = truncateBytes(note, 1024);
    assert.ok(Buffer.byteLength(cut) <= 1024);
    assert.ok(cut.endsWith("..."));
    assert.equal(truncateBytes("short", 1024), "short");
  });
});

describe("the recorder's bounds", () => {
  test("200 repeats: one create, one patch to a series of 2, the final count after 6 quiet minutes", async () => {
    const { time, sink, recorder } = setup();
    for (let i = 0; i < 200; i++) recorder.eventf(refused());
    await recorder.settled();
    assert.deepEqual(
      sink.calls.map((c) => [c.verb, c.series?.count]),
      [
        ["create", undefined],
        ["patch", 2],
      ],
    );
    await time.advance(6 * 60_000 + 1);
    await time.advance(6 * 60_000);
    await recorder.settled();
    assert.deepEqual(sink.calls.at(-1)?.series, {
      count: 200,
      lastObservedTime: microTime(Date.UTC(2026, 0, 1)),
    });
    assert.equal(sink.calls.length, 3);
    assert.equal(sink.stored.size, 1);
    // Forgotten once finished: the next one is a new Event.
    recorder.eventf(refused());
    await recorder.settled();
    assert.equal(sink.calls.at(-1)?.verb, "create");
    assert.equal(sink.stored.size, 2);
    assert.deepEqual(Object.fromEntries(recorder.counts().writes), { success: 4, failure: 0 });
    await recorder.stop();
  });

  test("a live series is written again every 30 minutes (it outlives the API server's 1 h TTL)", async () => {
    const { time, sink, recorder } = setup();
    recorder.eventf(refused());
    recorder.eventf(refused());
    for (let minute = 1; minute <= 31; minute++) {
      await time.advance(60_000);
      recorder.eventf(refused());
    }
    await recorder.settled();
    const patches = sink.calls.filter((c) => c.verb === "patch");
    assert.equal(patches.length, 2, "the first repeat, then the refresh at 30 minutes");
    assert.equal(patches[1]?.series?.count, 2 + 29);
    await recorder.stop();
  });

  test("different notes are different Events; the 10th within 10 minutes and later combine into one", async () => {
    const { sink, recorder } = setup();
    for (let i = 0; i < 15; i++) recorder.eventf(refused(`file /m/${i}.yaml is refused: bad`));
    await recorder.settled();
    const creates = sink.calls.filter((c) => c.verb === "create");
    assert.equal(creates.length, 10, "9 single Events, then one combined");
    assert.ok(creates[9]?.note.startsWith(CombinedPrefix), creates[9]?.note);
    const patches = sink.calls.filter((c) => c.verb === "patch");
    assert.deepEqual(
      patches.map((p) => p.series?.count),
      [2],
      "the later ones count into the combined Event's series",
    );
    await recorder.stop();
  });

  test("one object: 25 Events at once, then one every 5 minutes (tools/record's spam filter)", async () => {
    const { time, sink, recorder } = setup();
    const reasons = Array.from({ length: 30 }, (_, i) => `Reason${i}`);
    for (const reason of reasons) recorder.eventf({ ...refused(), reason });
    await recorder.settled();
    assert.equal(sink.calls.length, 25);
    assert.equal(recorder.counts().dropped.get("rate_limited"), 5);
    await time.advance(299_000);
    recorder.eventf({ ...refused(), reason: "Later1" });
    await recorder.settled();
    assert.equal(sink.calls.length, 25, "no token yet");
    await time.advance(300_000);
    recorder.eventf({ ...refused(), reason: "Later2" });
    await recorder.settled();
    assert.equal(sink.calls.length, 26);
    // Another object has its own bucket.
    recorder.eventf({ ...refused(), regarding: { ...node, name: "node-2", uid: "u-2" } });
    await recorder.settled();
    assert.equal(sink.calls.length, 27);
    await recorder.stop();
  });

  test("no answer: 12 tries about 10 s apart, then dropped; nothing else waits", async () => {
    const { time, sink, recorder } = setup();
    sink.fault = () => new SinkError("connect ECONNREFUSED 127.0.0.1:1");
    recorder.eventf(refused());
    for (let i = 0; i < 12; i++) await time.advance(12_500);
    await recorder.settled();
    assert.equal(sink.calls.length, 12);
    assert.equal(recorder.counts().dropped.get("retries_exhausted"), 1);
    assert.equal(recorder.counts().writes.get("failure"), 12);
    await recorder.stop();
  });

  test("an answer other than success (403: no RBAC) drops the Event at once; a 429 is tried again", async () => {
    const { time, sink, recorder } = setup();
    sink.fault = () => new SinkError("403 Forbidden: events.events.k8s.io is forbidden", 403);
    recorder.eventf(refused());
    await recorder.settled();
    assert.equal(sink.calls.length, 1);
    assert.equal(recorder.counts().dropped.get("rejected"), 1);
    let throttled = 2;
    sink.fault = () => (throttled-- > 0 ? new SinkError("429 TooManyRequests", 429, 1) : undefined);
    recorder.eventf(refused("another"));
    await time.advance(13_000);
    await time.advance(13_000);
    await recorder.settled();
    assert.equal(sink.calls.filter((c) => c.note === "another").length, 3);
    assert.equal(sink.stored.size, 1);
    await recorder.stop();
  });

  test("a series whose Event is gone (expired) is created again", async () => {
    const { sink, recorder } = setup();
    recorder.eventf(refused());
    await recorder.settled();
    sink.stored.clear();
    recorder.eventf(refused());
    await recorder.settled();
    assert.deepEqual(
      sink.calls.map((c) => c.verb),
      ["create", "patch", "create"],
    );
    assert.equal([...sink.stored.values()][0]?.series?.count, 2);
    await recorder.stop();
  });

  test("1000 waiting at most: more are dropped without waiting; stop() ends a hung write", async () => {
    const { sink, recorder } = setup();
    sink.fault = () => "hang";
    for (let i = 0; i < 1005; i++) recorder.eventf(refused(`note ${i}`));
    // Recording never yields to the writer: 1000 were queued, 5 dropped.
    assert.equal(recorder.counts().dropped.get("queue_full"), 5);
    await settle();
    assert.equal(sink.calls.length, 1, "one write in flight, hung");
    assert.equal(recorder.counts().recorded, 1005);
    await recorder.stop();
    assert.equal(
      recorder.counts().writes.get("failure"),
      0,
      "a write ended by stop() is no failure",
    );
  });
});
