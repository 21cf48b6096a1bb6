// How long a test waits for what must happen before it calls it a hang. A liveness bound, never
// a timing assertion: a passing test does not wait for it, so it is as long as a machine loaded
// by stress-ng --cpu 2 and other work may need (npm run test:busy), not what an idle one takes.
export const LivenessBoundMs = 120_000;
