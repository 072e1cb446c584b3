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
  // The quorum table is computed by the simulation core compiled to wasm.
  const row3 = page.locator('tr[data-members="3"] td');
  assert.deepEqual(await row3.allTextContents(), ['3', '2', '1']);
  await screenshot(page, 'home');
  assert.deepEqual(problems, [], 'console errors or uncaught exceptions');
});
