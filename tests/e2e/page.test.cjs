// The page a person opens: served from dist/, rendered by the wasm app, no panic.
const test = require('node:test');
const assert = require('node:assert/strict');
const { serve, launch, openPage, screenshot } = require('./lib.cjs');

test('the built playground renders in Chromium without errors', async (t) => {
  const server = await serve();
  const browser = await launch();
  t.after(async () => { await browser.close(); server.close(); });

  const { page, problems } = await openPage(browser, server.url);
  // The heading only exists once the wasm app has rendered (index.html has no body content).
  const h1 = page.getByRole('heading', { level: 1 });
  await h1.waitFor({ timeout: 15000 });
  assert.equal(await h1.textContent(), 'Kubernetes HA Playground');
  // The default scenario: a healthy three-member etcd, drawn by the core compiled to wasm.
  assert.equal(await page.getByTestId('quorum').textContent(), 'etcd: 3 of 3 — quorum');
  for (const host of ['etcd-1', 'etcd-2', 'etcd-3']) {
    assert.match(await page.locator(`[data-host="${host}"]`).getAttribute('aria-label'), /up, etcd (leader|follower)/);
  }
  assert.match(await page.getByRole('img', { name: /Charts over 5:00 of simulated time/ }).getAttribute('aria-label'), /Quorum lost for 0 s/);
  assert.match(await page.getByRole('region', { name: 'What happened' }).textContent(), /etcd leader in term 2/);
  // The quorum table (collapsed, still the core's numbers).
  const row3 = page.locator('tr[data-members="3"] td');
  assert.deepEqual(await row3.allTextContents(), ['3', '2', '1']);
  // The link always holds the scenario.
  assert.match(page.url(), /#s=1\./);
  await screenshot(page, 'home');

  // From 1024 px wide, nothing needs horizontal scrolling.
  await page.setViewportSize({ width: 1024, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(overflow, 0, 'the page scrolls sideways at 1024 px');
  await screenshot(page, 'home-1024');
  assert.deepEqual(problems, [], 'console errors or uncaught exceptions');
});
