// Headless Chromium for page tests: the Debian package at /usr/bin/chromium driven by
// playwright-core, with everything that would reach beyond the loopback switched off. Never
// skipped when missing: npm's pretest installs it (scripts/provision-test-tools.ts).
import { type Browser, chromium } from "playwright-core";

export const ChromiumPath = "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: ChromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
