// Open the pages `mmvesim report` wrote in headless Chromium and check them as a reader
// would see them:
//
//   node scripts/report-check.mjs RESULTS_DIR LEDGERS_DIR SCREENSHOT_DIR
//
// For results/index.html and every results/<paper>/index.html: the page loads without a
// console error or an uncaught exception, every image loads, the page has one claim row
// per [[claim]] of results/<paper>/claims.toml (counted here from the ledger file, not
// from the page), and each scenario section has one inline figure per plot its
// manifest.json lists. Saves a full-page screenshot of each page at 1280 and 390 px wide
// (SCREENSHOT_DIR `-`: none; the captures are half of the check's time).
// ONLY=<paper> checks that paper's page alone (scripts/report-check-selftest.sh uses it).
// Needs playwright-core (npm) and Chromium (CHROMIUM, default /usr/bin/chromium).
// Exits 1 naming every failed check.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.join(process.cwd(), "package.json"));
const { chromium } = require(process.env.PLAYWRIGHT_CORE || "playwright-core");

const [results, ledgers, shots] = process.argv.slice(2);
if (!results || !ledgers || !shots) {
  console.error("usage: node scripts/report-check.mjs RESULTS_DIR LEDGERS_DIR SCREENSHOT_DIR");
  process.exit(2);
}
if (shots !== "-") fs.mkdirSync(shots, { recursive: true });

const papers = fs
  .readdirSync(ledgers)
  .filter((p) => fs.existsSync(path.join(ledgers, p, "claims.toml")))
  .sort();
const claimCount = (p) =>
  (fs.readFileSync(path.join(ledgers, p, "claims.toml"), "utf8").match(/^\s*\[\[claim\]\]\s*$/gm) || [])
    .length;

const failures = [];
const fail = (m) => {
  failures.push(m);
  console.error("FAIL " + m);
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
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

async function check(file, name, expect) {
  const url = "file://" + path.resolve(file);
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("requestfailed", (r) => errors.push("request failed: " + r.url()));
    const resp = await page.goto(url, { waitUntil: "load", timeout: 120000 });
    if (!resp || !resp.ok()) fail(`${name}: did not load (${url})`);
    for (const e of errors) fail(`${name} @${width}px: console: ${e}`);
    const broken = await page.$$eval("img", (imgs) =>
      imgs.filter((i) => !(i.complete && i.naturalWidth > 0)).map((i) => i.src),
    );
    for (const b of broken) fail(`${name}: image did not load: ${b}`);
    if (width === 1280 && expect) {
      const rows = await page.$$eval("tr[data-claim]", (r) => r.length);
      if (rows !== expect.claims) fail(`${name}: ${rows} claim rows, the ledger has ${expect.claims}`);
      const sections = await page.$$eval("article[id^=scenario-]", (as) =>
        as.map((a) => ({
          scenario: a.id.slice("scenario-".length),
          figures: [...a.querySelectorAll("figure[data-plot]")].filter((f) => f.querySelector("svg, img")).length,
        })),
      );
      for (const s of sections) {
        const m = path.join(results, s.scenario, "manifest.json");
        if (!fs.existsSync(m)) continue; // not run: the page says so
        const want = JSON.parse(fs.readFileSync(m, "utf8")).plots.length;
        if (s.figures !== want) fail(`${name}: scenario ${s.scenario} shows ${s.figures} plots, its manifest lists ${want}`);
      }
      console.log(`ok   ${name}: ${rows} claim rows, ${sections.reduce((a, s) => a + s.figures, 0)} plots`);
    }
    if (!expect) {
      const n = await page.$$eval("tr[data-paper]", (r) => r.length);
      if (n !== papers.length) fail(`${name}: ${n} papers listed, ${papers.length} ledgers exist`);
    }
    if (shots !== "-") await screenshot(page, path.join(shots, `${name}-${width}.png`));
    await page.close();
  }
}

// A full-page capture can fail transiently on a busy machine ("Unable to capture
// screenshot"); it is retried twice before the check fails.
async function screenshot(page, file) {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.screenshot({ path: file, fullPage: true });
      return;
    } catch (e) {
      if (attempt === 3) throw e;
      console.log(`screenshot ${file}: ${String(e.message).split("\n")[0]}; retrying`);
      await page.waitForTimeout(2000);
    }
  }
}

const only = process.env.ONLY;
if (only && !papers.includes(only)) {
  console.error(`ONLY=${only}: no ledger ${path.join(ledgers, only, "claims.toml")}`);
  process.exit(2);
}
if (!only) await check(path.join(results, "index.html"), "index", null);
for (const p of only ? [only] : papers) {
  const f = path.join(results, p, "index.html");
  if (!fs.existsSync(f)) {
    fail(`${p}: no page ${f}`);
    continue;
  }
  await check(f, p, { claims: claimCount(p) });
}
await browser.close();
if (failures.length) {
  console.error(`report-check: ${failures.length} failure(s)`);
  process.exit(1);
}
console.log(`report-check: ${only ? 1 : papers.length + 1} pages ok` + (shots === "-" ? "" : `; screenshots in ${shots}`));
