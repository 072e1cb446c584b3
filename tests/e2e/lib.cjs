// Shared helpers of the end-to-end tests: serve dist/ on 127.0.0.1 and drive Debian's
// Chromium with playwright-core (installed into .tools/ by `cargo xtask setup`).
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const { chromium } = require('playwright-core');

const DIST = process.env.DIST_DIR || path.join(__dirname, '..', '..', 'dist');
const SHOTS = path.join(__dirname, 'screenshots');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.txt': 'text/plain; charset=utf-8',
};

/** The sub-path the tests serve dist/ under, as a GitHub Pages project site is served: nothing
 *  is served at the root, so an absolute asset URL in the page fails the tests. */
const BASE = '/ha-playground/';

/** Serves `dir` under `base` on an ephemeral loopback port; resolves to { url, close }. */
function serve(dir = DIST, base = BASE) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (!url.pathname.startsWith(base)) { res.writeHead(404); return res.end('outside ' + base); }
    let file = path.normalize(path.join(dir, decodeURIComponent(url.pathname.slice(base.length))));
    if (!file.startsWith(path.normalize(dir))) { res.writeHead(403); return res.end(); }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, body) => {
      if (err) { res.writeHead(404); return res.end('not found'); }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${server.address().port}${base}`, close: () => server.close() });
  }));
}

async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page that records console errors and uncaught exceptions (a Rust panic shows as both);
 *  `init`, if given, runs in the page before its own scripts (what it records, the test reads). */
async function openPage(browser, url, viewport = { width: 1400, height: 900 }, init = null) {
  const page = await browser.newPage({ viewport });
  // Every wait of these tests is for a state, never for a speed: a loaded machine only takes longer.
  page.setDefaultTimeout(30000);
  if (init) await page.addInitScript(init);
  const problems = [];
  const warnings = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
    if (m.type() === 'warning') warnings.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  return { page, problems, warnings };
}

async function screenshot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** The playground at `url`, once it has rendered its heading. */
async function openApp(browser, url, viewport) {
  const { page, problems } = await openPage(browser, url, viewport);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
  await started(page);
  return { page, problems };
}

/** Waits until the simulation worker's first state of the run is drawn (the quorum badge says
 *  "starting the simulation…" before, and "starting the cluster…" while the cluster boots). */
async function started(page) {
  await page.locator('[data-testid="quorum"]:not(.starting)').waitFor({ timeout: 30000 });
}

/** Waits until the view is where it was asked to be (the status line is not busy): what
 *  the page shows after a seek, a drag or a new run. */
async function settled(page) {
  await page.locator('.status[aria-busy="false"]').waitFor({ timeout: 30000 });
}

/** Waits until the whole run is computed (every chart of the page, or of a frame, no longer
 *  busy): the charts, their summaries and the log are final only then. Generous by default: on
 *  a loaded two-core machine a large run takes a while, and only its end is asserted. */
async function computed(scope, timeout = 120000) {
  await scope.locator('figure.charts').first().waitFor({ timeout });
  await scope.locator('figure.charts[aria-busy="true"]').first().waitFor({ state: 'detached', timeout });
}

/** Picks a ready scenario and waits until its whole run is computed. */
async function pick(page, id) {
  await page.getByRole('combobox', { name: 'Ready scenario' }).selectOption(id);
  await computed(page);
}

/** Sets the time slider to `seconds`; when `shown` is given, waits until the view is there and
 *  the clock shows it. */
async function scrubTo(page, seconds, shown) {
  await page.getByRole('slider', { name: 'Simulated time' }).fill(String(seconds));
  if (shown) {
    await page.locator('.status[aria-busy="false"] .clock', { hasText: `t = ${shown}` }).waitFor({ timeout: 30000 });
  }
}

/** The retrying assertion of these tests (Playwright's `expect(…).toHaveText` without its test
 *  runner): reads until `expected` (a RegExp to match, or a value to equal) holds, and resolves
 *  to what it read; fails after `timeout` ms with the last value read. What the page shows comes
 *  from the simulation's worker a moment after a gesture, sooner or later with the machine's load. */
async function until(read, expected, what = 'the value', timeout = 30000) {
  const holds = (v) => (expected instanceof RegExp ? typeof v === 'string' && expected.test(v) : v === expected);
  const end = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > end) assert.fail(`${what} was ${JSON.stringify(value)} for ${timeout} ms, expected ${expected}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until a locator's text matches or equals `expected`; resolves to the text. */
const expectText = (locator, expected, timeout) => until(() => locator.textContent(), expected, `text of ${locator}`, timeout);

/** Waits until a locator's attribute matches or equals `expected`; resolves to its value. */
const expectAttr = (locator, name, expected, timeout) =>
  until(() => locator.getAttribute(name), expected, `${name} of ${locator}`, timeout);

/** The simulated time the status line shows, in seconds ("t = 1:02:03.4 / 168:00:00" → 3723.4). */
async function clockSeconds(page) {
  const text = await page.locator('.status .clock').textContent();
  const [, shown] = /t = ([\d:.]+)/.exec(text);
  return shown.split(':').reduce((acc, part) => acc * 60 + Number(part), 0);
}

/** The scenario part of the page's link (`s=1.…`), once the page has written one. */
async function linkScenario(page) {
  await page.waitForFunction(() => /s=1\./.test(location.hash));
  return page.evaluate(() => location.hash.match(/s=[^&]*/)[0]);
}

/** Waits until the page's link holds another scenario than `before`: the browser compresses a
 *  changed scenario a moment after the change, and the share box takes the link as it is. */
async function linkChangedFrom(page, before) {
  await page.waitForFunction((b) => {
    const m = location.hash.match(/s=1\.[^&]*/);
    return m !== null && m[0] !== b;
  }, before);
}


/** A catalog as a map from English to its translation (the format of web/lang/*.txt). */
function catalog(code) {
  const lines = fs.readFileSync(path.join(__dirname, '../../web/lang', `${code}.txt`), 'utf8')
    .split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const map = new Map();
  for (let i = 0; i + 1 < lines.length; i += 2) map.set(lines[i], lines[i + 1]);
  return map;
}

module.exports = {
  catalog,
  serve, launch, openPage, openApp, started, settled, computed, pick, scrubTo, until, expectText, expectAttr,
  clockSeconds, linkScenario, linkChangedFrom, screenshot, DIST,
};
