// The status page in headless Chromium: a manifest URL answering 404 shows as a stuck http
// source (NOT READY banner naming it, the 404 as last error), and the page turns READY by
// itself, without a reload, once the URL serves pods. Screenshots go to artifacts/.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { describe, test } from "node:test";
import type { Locator } from "playwright-core";
import { launchChromium } from "../support/browser.js";
import { LivenessBoundMs } from "../support/liveness.js";
import { fileAndStuckHTTP } from "./helpers.js";

const artifacts = new URL("../../artifacts/", import.meta.url);

/** The text as a reader sees it: rendered, with CSS (uppercase headings, line breaks) applied. */
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is under test
const shown = (locator: Locator): Promise<string> => locator.innerText();

describe("status page", () => {
  test("shows the stuck http source, then ready after it recovers", async (t) => {
    const { manifests, exporter } = await fileAndStuckHTTP(t);
    await mkdir(artifacts, { recursive: true });

    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    await page.goto(`${exporter.url}/`);

    const http = page.locator('tr[data-source="http"]');
    const file = page.locator('tr[data-source="file"]');
    // The 404 reaches the page through its own refresh (the first render may predate the poll).
    await http.locator("td.error", { hasText: "404" }).waitFor({ timeout: LivenessBoundMs });
    assert.equal(await http.getAttribute("data-ready"), "false");
    assert.match(await shown(http.locator("td.state")), /NOT READY\s+no SET received yet/);
    assert.match(await shown(http.locator("td.error")), /^status/);
    await file.and(page.locator('[data-ready="true"]')).waitFor({ timeout: LivenessBoundMs });
    const banner = page.locator(".banner");
    assert.match(await shown(banner), /^NOT READY\s+Waiting for http for /);
    assert.match(await page.title(), /^NOT READY/);
    await page.screenshot({
      path: new URL("status-page-stuck.png", artifacts).pathname,
      fullPage: true,
    });

    manifests.serve("haproxy");
    await http.and(page.locator('[data-ready="true"]')).waitFor({ timeout: LivenessBoundMs });
    await page.locator(".banner.ready").waitFor({ timeout: LivenessBoundMs });
    assert.match(await shown(banner), /^READY\s+All 2 sources ready after \d/);
    assert.match(await shown(http.locator("td.state")), /^READY$/);
    assert.equal(await shown(http.locator("td.num")), "1");
    assert.match(await shown(page.locator("dl.summary")), /time to all-ready\s+\d+(\.\d+)? (s|m)/i);
    assert.match(await page.title(), /^READY/);
    await page.screenshot({
      path: new URL("status-page-ready.png", artifacts).pathname,
      fullPage: true,
    });
  });
});
