// The compare view: two runs on one time axis, one cursor, the first difference marked; a
// variant made from the page, and the link that carries both.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const fs = require('node:fs');
const path = require('node:path');
const {
  serve, launch, openApp, pick, scrubTo, until, expectText, linkScenario, linkChangedFrom, screenshot,
} = require('./lib.cjs');

let server;
let browser;
test.before(async () => { server = await serve(); browser = await launch(); });
test.after(async () => { await browser.close(); server.close(); });

/** A ready scenario as the share link encodes it (raw DEFLATE of the compact JSON, base64url). */
function encoded(id) {
  const json = JSON.stringify(JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'scenarios', `${id}.json`), 'utf8')));
  return '1.' + zlib.deflateRawSync(Buffer.from(json)).toString('base64url');
}

test('compare: three masters and five masters losing two, from a link with c=', async () => {
  const fragment = `#s=${encoded('3-three-masters-two-die')}&c=${encoded('5-five-masters-lose-two')}&t=90`;
  const { page, problems } = await openApp(browser, server.url + fragment);
  const view = page.getByRole('region', { name: 'Compare view' });
  await view.waitFor({ timeout: 30000 });
  // Both names, both charts, one cursor at the link's time.
  assert.match(await view.textContent(), /This run: .*Compared with: /);
  const figures = view.locator('figure.charts');
  assert.equal(await figures.count(), 2);
  await page.getByRole('status').filter({ hasText: /They first differ at 1:0\d \(etcd quorum\)/ }).waitFor({ timeout: 30000 });
  for (let i = 0; i < 2; i++) {
    await expectText(figures.nth(i).locator('.cursor-label'), '1:30.0');
    await expectText(figures.nth(i).locator('.mark-label'), /^first difference: 1:0\d \(etcd quorum\)$/);
  }
  // Scrubbing moves the cursor on both.
  await scrubTo(page, 150, '2:30.0');
  for (let i = 0; i < 2; i++) await expectText(figures.nth(i).locator('.cursor-label'), '2:30.0');
  await screenshot(page, 'compare-three-vs-five');
  assert.deepEqual(problems, []);
});

test('compare: a variant made in the page; the share link carries both', async () => {
  const { page, problems } = await openApp(browser, server.url);
  await pick(page, 'etcd-leader-dies');
  await page.getByRole('button', { name: 'Compare with a variant' }).click();
  const view = page.getByRole('region', { name: 'Compare view' });
  await view.waitFor();
  // A copy is identical until this run changes.
  await page.getByRole('status').filter({ hasText: 'Their charts do not differ.' }).waitFor({ timeout: 30000 });
  // Change this run: crash a second member at 0:40 (host menu), and the charts part there.
  await scrubTo(page, 40, '0:40.0');
  const unchanged = await linkScenario(page);
  await page.locator('[data-host="etcd-1"]').click();
  await page.getByRole('menuitem', { name: /Crash/ }).click();
  await page.getByRole('status').filter({ hasText: /They first differ at 0:4\d \(etcd quorum\)/ }).waitFor({ timeout: 30000 });
  // The link opens the pair again (once it holds the changed run).
  await linkChangedFrom(page, unchanged);
  await page.getByRole('button', { name: 'Share this run' }).click();
  const link = await page.getByRole('textbox', { name: 'Share link' }).inputValue();
  assert.match(link, /#s=1\.[A-Za-z0-9_-]+&c=1\.[A-Za-z0-9_-]+&t=40$/);
  const fresh = await openApp(browser, server.url + link.slice(link.indexOf('#')));
  await fresh.page.getByRole('status').filter({ hasText: /They first differ at 0:4\d \(etcd quorum\)/ }).waitFor({ timeout: 30000 });
  await fresh.page.close();
  // Stop comparing: one run again, and the link forgets the other.
  await page.getByRole('button', { name: 'Stop comparing' }).first().click();
  await page.getByRole('region', { name: 'Compare view' }).waitFor({ state: 'detached' });
  await until(async () => (await page.evaluate(() => location.hash)).includes('&c='), false, 'whether the link still carries &c=');
  assert.deepEqual(problems, []);
});
