// The demo configuration: the shipped rules with thresholds short enough that `docker compose up`
// and `npm run demo` show an alert go pending, fire and resolve within a few minutes (the demo
// manifest URL answers 503 for the first 2 minutes). Generated into mixin/generated/demo/rules.
export const demoOverrides = {
  startupGracePeriod: "20s",
  gaugeLookback: "15s",
  sourceNotReadyFor: "30s",
  housekeepingBlockedFor: "30s",
  storedNotSeenFor: "30s",
  sourceErrorsFor: "1m",
  exporterDownFor: "30s",
  exporterAbsentFor: "1m",
  slowStartupThresholdSeconds: 60,
  slowStartupClearAfter: "10m",
};

/** How long the demo manifest URL fails: longer than grace + `for`, so the alert fires. */
export const DemoUnavailableFor = "2m";
