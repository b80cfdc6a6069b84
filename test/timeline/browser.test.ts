/**
 * The timeline page in a real headless browser (Debian's `chromium`, driven by
 * `playwright-core`; the "See and edit" issue, item 2): it loads from a file with no
 * console error, no script run and no request but itself, shows one lane per run of the
 * journal, keeps every bar inside its track and the page inside the window, and shows the
 * failing step's source position. A screenshot of each page is kept in reports/timeline/
 * (a CI artefact). `.ci/run` installs chromium when it is missing; without it the test says
 * it is skipped and why, never passes silently.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timelineHtml } from "../../cli/timeline/html.js";
import type { Timeline } from "../../cli/timeline/model.js";
import { cli, repo, temp } from "../pipeline/helpers.js";
import { APPROVER, gateRun, noisyRun, panelRun, positionOf, runIds, type MadeRun } from "./runs.js";

/** The browser to drive: $CHROMIUM, else Debian's chromium on PATH. */
function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of ["chromium", "chromium-browser"]) {
    try {
      return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim() || undefined;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const executable = chromiumPath();
if (!executable) console.log("skipped: no chromium (.ci/run installs Debian's chromium; or set CHROMIUM to a Chromium binary)");
const shots = join(repo, "reports", "timeline");

describe.skipIf(!executable)("the timeline page in a real browser", () => {
  let browser: Browser;
  let gate: MadeRun;
  let panel: MadeRun;
  beforeAll(async () => {
    [browser, gate, panel] = await Promise.all([chromium.launch({ executablePath: executable, args: ["--no-sandbox"] }), gateRun(), Promise.resolve().then(panelRun)]);
    mkdirSync(shots, { recursive: true });
  }, 90_000);
  afterAll(async () => browser?.close());

  /** Writes the page of `made` to a file and opens it; what the browser reported while loading. */
  async function open(made: MadeRun, name: string, width = 1400) {
    const r = cli(["journal", made.run, "--state-dir", made.state, "--format", "html"]);
    expect(r.status, r.stderr).toBe(0);
    const file = join(temp("criteria-page-"), `${name}.html`);
    writeFileSync(file, r.stdout);
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => void (m.type() === "error" || m.type() === "warning" ? problems.push(`${m.type()}: ${m.text()}`) : undefined));
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("request", (q) => requests.push(q.url()));
    await page.goto(`file://${file}`, { waitUntil: "load" });
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    return { page, problems, requests, url: `file://${file}` };
  }

  for (const name of ["gate", "review_panel"] as const) {
    it(`${name}: loads with no console error and no request, one lane per run, bars inside their tracks`, async () => {
      const made = name === "gate" ? gate : panel;
      const { page, problems, requests, url } = await open(made, name);
      expect(problems).toEqual([]);
      expect(requests).toEqual([url]);
      const lanes = await page.locator("section.lane").evaluateAll((els) => els.map((e) => e.getAttribute("data-run")));
      expect(lanes.sort()).toEqual((await runIds(made)).sort());
      // Every bar and mark is drawn within its track, and nothing widens the page.
      const outside = await page.evaluate(() => {
        const bad: string[] = [];
        for (const track of document.querySelectorAll(".track")) {
          const t = track.getBoundingClientRect();
          for (const el of track.querySelectorAll(".bar, .mark")) {
            const b = el.getBoundingClientRect();
            if (b.left < t.left - 1 || b.right > t.right + 1) bad.push(`${el.className} ${el.textContent}: ${b.left}-${b.right} outside ${t.left}-${t.right}`);
          }
        }
        if (document.documentElement.scrollWidth > window.innerWidth) bad.push(`page ${document.documentElement.scrollWidth}px wide in a ${window.innerWidth}px window`);
        return bad;
      });
      expect(outside).toEqual([]);
      expect(await page.locator(".bar").count()).toBeGreaterThan(lanes.length);
      await page.close();
    }, 30_000);
  }

  it("gate: the failing step, its reason and source position are shown; markup from the journal stays text", async () => {
    const { page } = await open(gate, "gate-failure");
    const failure = page.locator(".failure");
    await expect(failure.isVisible()).resolves.toBe(true);
    const text = await failure.innerText();
    expect(text).toContain("Failed at step bad");
    expect(text).toContain("eval_error");
    expect(await page.locator(".failure code.position").innerText()).toBe(`${gate.file}:${positionOf(gate.file, "var.broken_json)")}`);
    // The approver's name is markup: it is shown as text, and nothing in it ran.
    expect(await page.locator(".mark.decision").innerText()).toBe(`approved by ${APPROVER}`);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.title()).toBe("criteria run t (gate)");
    // A lane's journal entries open on a click.
    const entries = page.locator("section.lane").first().locator("details.entries");
    expect(await entries.locator("pre").isVisible()).toBe(false);
    await entries.locator("summary").click();
    expect(await entries.locator("pre").innerText()).toContain("approval.decided");
    await page.close();
  }, 30_000);

  it("fits the window: a reason of 3,000 characters without a space, and windows of 1024 and 480 px (a trial's page was 20,319 px wide)", async () => {
    for (const [made, name, width] of [[noisyRun(), "noisy", 1400], [panel, "review_panel-1024", 1024], [gate, "gate-480", 480]] as const) {
      const { page } = await open(made, name, width);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, name).toBeLessThanOrEqual(width);
      // Tick labels do not run into each other.
      const ticks = await page.locator(".tick").evaluateAll((els) => els.filter((e) => getComputedStyle(e).display !== "none").map((e) => e.getBoundingClientRect()).map((r) => [r.left, r.right]));
      for (let i = 1; i < ticks.length; i++) expect(ticks[i][0], `${name}: tick ${i}`).toBeGreaterThanOrEqual(ticks[i - 1][1]);
      await page.close();
    }
  }, 60_000);

  it("keeps tick labels apart whatever the run's length, at every width from 480 px (CI: `+1 s 500 ms` ran into its neighbour at 480 px once)", async () => {
    // Lengths whose ticks have long labels (`+1 s 500 ms`, `+1 min 45 s`, `+1 h 30 min`), and round ones.
    // And 60 more, spread evenly on a log scale from 5 ms to 40 days (CI: a run under load gave a span whose last label widened a 480 px page by a pixel).
    const spans = [7, 1_450, 1_600, 1_700, 3_300, 7_400, 12_000, 37_000, 105_000, 200_000, 950_000, 5_400_000, 9_000_000, 100_000_000, 400_000_000, 3_000_000_000, ...Array.from({ length: 60 }, (_, i) => Math.round(5 * Math.pow(40 * 86_400_000 / 5, i / 59)))];
    const page = await browser.newPage({ viewport: { width: 1400, height: 300 } });
    const overlaps: string[] = [];
    for (const span of spans) {
      const t: Timeline = { run_id: "r", workflow: "w", start_ms: 1_000_000, end_ms: 1_000_000 + span, status: "succeeded", lanes: [], entries: 2 };
      await page.setContent(timelineHtml(t));
      for (const width of [480, 481, 600, 900, 901, 1024, 1400]) {
        await page.setViewportSize({ width, height: 300 });
        const ticks = await page.locator(".tick").evaluateAll((els) => els.filter((e) => getComputedStyle(e).display !== "none").map((e) => ({ text: e.textContent, ...e.getBoundingClientRect().toJSON() })));
        // Every label within the axis (CI: "+1 s 500 ms" centred at 94 % of a 1.6 s run ran past it at 480 px).
        const axis = await page.locator(".axis .ticks").evaluate((e) => e.getBoundingClientRect().toJSON());
        for (const t of ticks) if (t.left < axis.left - 1 || t.right > axis.right + 1) overlaps.push(`${span} ms at ${width} px: "${t.text}" ${t.left}-${t.right} outside the axis ${axis.left}-${axis.right}`);
        for (let i = 1; i < ticks.length; i++) {
          if (ticks[i].left < ticks[i - 1].right) overlaps.push(`${span} ms at ${width} px: "${ticks[i - 1].text}" ${ticks[i - 1].left}-${ticks[i - 1].right} runs into "${ticks[i].text}" ${ticks[i].left}-${ticks[i].right}`);
        }
        if (ticks.length < 2) overlaps.push(`${span} ms at ${width} px: ${ticks.length} tick(s) shown`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        if (wide > width) overlaps.push(`${span} ms at ${width} px: the page is ${wide} px wide`);
      }
    }
    await page.close();
    expect(overlaps).toEqual([]);
  }, 120_000);

  it("keeps the screenshots as artefacts", () => {
    for (const name of ["gate", "review_panel", "gate-failure", "noisy", "gate-480"]) expect(existsSync(join(shots, `${name}.png`)), name).toBe(true);
  });
});
