import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DurationError, parseDuration } from "../../src/sources/duration.js";

describe("parseDuration (Go's time.ParseDuration, in ms)", () => {
  test("valid durations", () => {
    const cases: [string, number][] = [
      ["20s", 20_000],
      ["1m30s", 90_000],
      ["500ms", 500],
      ["1.5h", 5_400_000],
      ["2h45m", 9_900_000],
      ["0", 0],
      ["-0", 0],
      ["+5s", 5_000],
      ["-1s", -1_000],
      ["1us", 0.001],
      ["1\u00b5s", 0.001],
      ["1\u03bcs", 0.001],
      ["1500ns", 0.0015],
      [".5s", 500],
      ["1.s", 1_000],
      ["1h1m1s1ms", 3_661_001],
    ];
    for (const [input, ms] of cases) assert.equal(parseDuration(input), ms, input);
  });

  test("invalid durations, with Go's messages", () => {
    const cases: [string, string][] = [
      ["", 'time: invalid duration ""'],
      ["1", 'time: missing unit in duration "1"'],
      ["1x", 'time: unknown unit "x" in duration "1x"'],
      ["s", 'time: invalid duration "s"'],
      [".s", 'time: invalid duration ".s"'],
      ["1s 2m", 'time: unknown unit "s " in duration "1s 2m"'],
      ["-", 'time: invalid duration "-"'],
      ["3000000h", 'time: invalid duration "3000000h"'],
    ];
    for (const [input, message] of cases)
      assert.throws(
        () => parseDuration(input),
        (err: unknown) => err instanceof DurationError && err.message === message,
        input,
      );
  });
});
