// The page a person opens: served from dist/, rendered by the wasm app, no panic.
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  serve, launch, openPage, started, settled, computed, scrubTo, until, expectText, expectAttr, screenshot,
} = require('./lib.cjs');

test('the built playground renders in Chromium without errors', async (t) => {
  const server = await serve();
  const browser = await launch();
  t.after(async () => { await browser.close(); server.close(); });

  const { page, problems, warnings } = await openPage(browser, server.url);
  // The heading only exists once the wasm app has rendered (index.html has no body content).
  const h1 = page.getByRole('heading', { level: 1 });
  await h1.waitFor({ timeout: 30000 });
  assert.equal(await h1.textContent(), 'Kubernetes HA Playground');
  // The simulation runs in a Web Worker; its first state arrives a moment later.
  assert.match(await page.locator('main').getAttribute('data-diag'), /^engine=worker /);
  await started(page);
  // What follows reads the whole run: its charts and its log.
  await computed(page);
  await settled(page);
  // The start page leads with the questions, over a healthy Kubernetes cluster to break.
  const questions = page.getByRole('region', { name: /What do you want to see\?/ });
  for (const q of [/only master died/, /Three masters, two die/, /Two racks split/, /spot/, /Four masters lose two/]) {
    assert.ok(await questions.getByRole('button', { name: q }).isVisible(), `question ${q}`);
  }
  assert.equal(await page.getByTestId('quorum').textContent(), 'etcd: 3 of 3 — quorum');
  for (const host of ['m1', 'm2', 'm3']) {
    assert.match(await page.locator(`[data-host="${host}"]`).getAttribute('aria-label'), /up, etcd (leader|follower).*apiserver: ready.*Node Ready/);
  }
  // Three masters drawn alike, and one sentence saying they are not.
  assert.match(await page.locator('.legend-note.masters').textContent(),
    /^3 masters: every apiserver serves at once; etcd, the controller-manager and the scheduler each have one leader/);
  for (const host of ['w1', 'w2', 'w3']) {
    assert.ok(await page.locator(`[data-host="${host}"] .pod[data-workload="web"]`).count() >= 1, `a web pod on ${host}`);
  }
  assert.match(await page.getByRole('img', { name: /Charts over 10:00 of simulated time/ }).getAttribute('aria-label'), /Quorum lost for 0 s/);
  const charts = await page.locator('figure.charts').textContent();
  for (const row of ['API writes', 'service web', 'DNS lookups', '100 % of lookups ok', 'pods web']) {
    assert.ok(charts.includes(row), `charts show "${row}"`);
  }
  assert.match(await page.getByRole('region', { name: 'What happened' }).textContent(), /etcd leader in term 2/);
  // The quorum table (collapsed, still the core's numbers).
  const row3 = page.locator('tr[data-members="3"] td');
  assert.deepEqual(await row3.allTextContents(), ['3', '2', '1']);
  // The link always holds the scenario (written once the browser has compressed it).
  await page.waitForFunction(() => location.hash.startsWith('#s=1.'), null, { timeout: 30000 });
  assert.match(page.url(), /#s=1\./);
  await screenshot(page, 'home');

  // From 1024 px wide, nothing needs horizontal scrolling.
  await page.setViewportSize({ width: 1024, height: 800 });
  // The page is laid out again for the new width a frame after the window's resize.
  await until(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0,
    'how far the page scrolls sideways at 1024 px');
  await screenshot(page, 'home-1024');
  // A question opens its scenario at the moment that answers it; the questions step aside.
  await page.setViewportSize({ width: 1400, height: 900 });
  await questions.getByRole('button', { name: /only master died/ }).click();
  await page.locator('.status[aria-busy="false"] .clock', { hasText: 't = 2:00.0' }).waitFor({ timeout: 30000 });
  await expectText(page.getByTestId('quorum'), 'etcd: 0 of 1 — NO QUORUM');
  assert.equal(await page.getByRole('region', { name: /What do you want to see\?/ }).count(), 0);
  await expectText(page.locator('.scenario'), /My only master died: does my app keep serving\?/);
  // The API cannot notice the dead master: its Node stays Ready, and the page says why.
  await expectAttr(page.locator('[data-host="master"]'), 'aria-label', /Node Ready, lease stale.*stays Ready: no controller/);
  await page.getByRole('button', { name: '← All questions' }).click();
  await page.getByRole('region', { name: /What do you want to see\?/ }).waitFor();
  assert.deepEqual(problems, [], 'console errors or uncaught exceptions');
  assert.deepEqual(warnings, [], 'console warnings (the wasm preload once warned about its integrity attribute)');
});

test('the same dist/ works at a site root and under a sub-path (relative asset URLs)', async (t) => {
  const browser = await launch();
  for (const base of ['/', '/some/project/']) {
    const server = await serve(undefined, base);
    t.after(() => server.close());
    const { page, problems } = await openPage(browser, server.url);
    await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
    assert.ok(new URL(page.url()).pathname.startsWith(base));
    assert.deepEqual(problems, [], `served under ${base}`);
    await page.close();
  }
  await browser.close();
});

test('a phone (360 and 390 px): no sideways scroll, readable charts', async (t) => {
  const server = await serve();
  const browser = await launch();
  t.after(async () => { await browser.close(); server.close(); });
  for (const width of [360, 390]) {
    const { page, problems } = await openPage(browser, server.url, { width, height: 844 });
    await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
    await page.getByRole('combobox', { name: 'Ready scenario' }).selectOption('1-only-master-dies');
    await computed(page);
    await scrubTo(page, 250, '4:10.0');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, `the page scrolls sideways at ${width} px`);
    // The charts are drawn at the figure's own width: their text is not shrunk below ~11 px.
    const scale = await page.locator('figure.charts svg').evaluate((svg) => svg.getBoundingClientRect().width / svg.viewBox.baseVal.width);
    assert.ok(scale > 0.95, `charts scaled by ${scale}`);
    await screenshot(page, `phone-${width}`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

// The page writes and reads numbers through the core's `kernel::decimal`: core's float
// formatting (Grisu, whose table of cached powers of ten starts with this word) and the float
// parser's tables would add about 24 KB gzipped. One `{}` of an f64 anywhere brings them back.
test('the page carries no float formatting or parsing tables', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { DIST } = require('./lib.cjs');
  const wasm = fs.readdirSync(DIST).find((f) => f.endsWith('.wasm'));
  const bytes = fs.readFileSync(path.join(DIST, wasm));
  const word = (hex) => Buffer.from(hex, 'hex').reverse();
  // grisu::CACHED_POW10[0].0 (core's f64 Display) and dec2flt's POWER_OF_FIVE_128[0] (str::parse).
  for (const [name, hex] of [['Grisu cached powers of ten', 'e61acf033d1a45df'], ['powers of five (float parsing)', 'eef453d6923bd65a']]) {
    assert.equal(bytes.indexOf(word(hex)), -1, `${wasm} holds ${name}`);
  }
});
