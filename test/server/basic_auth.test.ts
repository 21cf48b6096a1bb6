// Basic auth that cannot be starved or timed: checks run off the event loop in bounded queues
// per user and client address (a full queue refuses at once), a success is remembered so a flood of guesses cannot
// make a scraper pay again, and an unknown user is checked against a decoy of the highest cost.
import assert from "node:assert/strict";
import { test } from "node:test";
import bcrypt from "bcryptjs";
import { BasicAuth, decoyHash } from "../../src/server/basic_auth.js";
import { AuthBusyError, MaxQueuedPerClient } from "../../src/server/bcrypt_pool.js";
import { bcryptCost } from "../../src/server/web_config.js";

const prometheus = "10.0.0.9";
const attacker = "10.0.0.66";

test("an unknown user is checked against a hash no password matches, of the highest cost configured", () => {
  const users = new Map([
    ["a", bcrypt.hashSync("x", 4)],
    ["b", `$2y$11$${"b".repeat(53)}`],
  ]);
  const decoy = decoyHash(users);
  assert.equal(bcryptCost(decoy), 11);
  assert.notEqual(decoyHash(users), decoy, "a random salt each time");
  assert.equal(bcrypt.compareSync("", decoyHash(new Map([["a", bcrypt.hashSync("", 4)]]))), false);
  assert.equal(bcryptCost(decoyHash(new Map())), 10);
});

test("a flood of guesses fills its own queue and is refused there; a scraper let in before is let in at once", async (t) => {
  const auth = new BasicAuth();
  t.after(() => auth.close());
  const users = new Map([
    ["scraper", bcrypt.hashSync("right", 4)],
    ["alice", bcrypt.hashSync("secret", 6)],
  ]);
  assert.equal(await auth.check(users, "scraper", "right", prometheus), true);
  // Queued in the same turn: at most two run, MaxQueuedPerClient wait, the rest are refused.
  const guesses = Array.from({ length: MaxQueuedPerClient + 8 }, (_, i) =>
    auth.check(users, "scraper", `guess-${i}`, attacker),
  );
  const unknown = auth.check(users, "mallory", "x", attacker);
  const cached = auth.check(users, "scraper", "right", prometheus);
  const other = auth.check(users, "alice", "secret", attacker);
  const results = await Promise.allSettled(guesses);
  const refused = results.filter(
    (r) => r.status === "rejected" && r.reason instanceof AuthBusyError,
  ).length;
  assert.ok(refused >= 6, `${refused} guesses refused`);
  assert.ok(
    results.every((r) => r.status === "rejected" || r.value === false),
    "no guess let in",
  );
  assert.equal(await cached, true, "the scraper's success is remembered through the flood");
  assert.equal(await other, true, "another user's check is served in its turn");
  assert.equal(await unknown, false);
});

test("a flood of wrong passwords under the scraper's own name never keeps its first check from running", async (t) => {
  // One queue per user let the flood fill it: the scraper's first login was refused (503).
  const auth = new BasicAuth();
  t.after(() => auth.close());
  const users = new Map([["scraper", bcrypt.hashSync("right", 6)]]);
  const guesses = Array.from({ length: MaxQueuedPerClient + 8 }, (_, i) =>
    auth.check(users, "scraper", `guess-${i}`, attacker),
  );
  const first = auth.check(users, "scraper", "right", prometheus);
  const results = await Promise.allSettled(guesses);
  assert.ok(
    results.some((r) => r.status === "rejected" && r.reason instanceof AuthBusyError),
    "the flood filled its queue",
  );
  assert.equal(await first, true, "the scraper's check ran in its own turn");
});
