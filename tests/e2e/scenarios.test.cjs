// Every ready scenario at the moment that answers its question, opened from the start page as a
// newcomer would, on a wide screen, a laptop and a phone: it fits the width, shows that moment,
// and raises no error. The screenshots (tests/e2e/screenshots/ready-*.png) are for looking at.
const test = require('node:test');
const assert = require('node:assert/strict');
const { serve, launch, openPage, computed, screenshot } = require('./lib.cjs');

let server;
let browser;
test.before(async () => { server = await serve(); browser = await launch(); });
test.after(async () => { await browser.close(); server.close(); });

/** `t = m:ss.0` as the status line shows a whole second. */
const shown = (s) => `t = ${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}.0`;

for (const [width, height] of [[1400, 900], [1280, 720], [390, 844]]) {
  test(`every question opens its scenario at its moment (${width}×${height})`, async () => {
    const { page, problems } = await openPage(browser, server.url, { width, height });
    await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
    const start = page.getByRole('region', { name: /What do you want to see\?/ });
    await start.locator('summary').click();
    const questions = await start.locator('button.question').evaluateAll((bs) =>
      bs.map((b) => ({ id: b.dataset.ready, moment: Number(b.dataset.moment) })));
    assert.ok(questions.length >= 17, `${questions.length} questions`);
    for (const { id, moment } of questions) {
      const region = page.getByRole('region', { name: /What do you want to see\?/ });
      if (await region.locator('details').getAttribute('open') === null) await region.locator('summary').click();
      await region.locator(`button.question[data-ready="${id}"]`).click();
      await page.locator('.status[aria-busy="false"] .clock', { hasText: shown(moment) }).waitFor({ timeout: 30000 });
      assert.equal(await page.getByRole('combobox', { name: 'Ready scenario' }).inputValue(), id);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${id} scrolls sideways at ${width} px`);
      if (width === 1400) {
        await computed(page);
      }
      await screenshot(page, `ready-${id}-${width}`);
      await page.getByRole('button', { name: '← All questions' }).click();
      await region.waitFor();
    }
    assert.deepEqual(problems, []);
  });
}
