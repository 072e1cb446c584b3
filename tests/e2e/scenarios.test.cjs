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

/** Text a reader cannot read whole: a host card's text past its box, chart labels on top of
 *  each other, a chart label cut without a tooltip, HTML text cut by its box without one. */
function cutText(page) {
  return page.evaluate(() => {
    const out = [];
    const own = (t) => [...t.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
    for (const g of document.querySelectorAll('g.host')) {
      const box = g.querySelector('rect.box');
      if (!box) continue;
      const b = box.getBBox();
      for (const t of g.querySelectorAll('text')) {
        const r = t.getBBox();
        if (r.width > 0 && (r.x < b.x - 1 || r.x + r.width > b.x + b.width + 1)) {
          out.push(`${g.dataset.host}: "${own(t)}" past its box by ${Math.round(r.x + r.width - b.x - b.width)} px`);
        }
      }
    }
    const labels = [...document.querySelectorAll('figure.charts text.row-title, figure.charts text.row-sub, figure.charts text.lane')];
    const boxes = labels.map((t) => t.getBoundingClientRect());
    for (let i = 0; i < labels.length; i++) {
      const t = labels[i];
      if (own(t).endsWith('…') && !t.querySelector('title')) out.push(`chart: "${own(t)}" cut without a tooltip`);
      for (let j = i + 1; j < labels.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        if (a.width && b.width && a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 2 && b.top < a.bottom - 2) {
          out.push(`chart: "${own(t)}" over "${own(labels[j])}"`);
        }
      }
    }
    for (const el of document.querySelectorAll('main *')) {
      if (el.closest('svg, pre, select, textarea, input, .console-screen, .visually-hidden')) continue;
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.overflowX === 'visible' || el.clientWidth === 0) continue;
      if (el.scrollWidth > el.clientWidth + 1 && !el.title) out.push(`${el.tagName.toLowerCase()}.${el.className}: "${el.textContent.trim().slice(0, 40)}" cut`);
    }
    return out;
  });
}

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
    const cut = [];
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
      if (width !== 1280) cut.push(...(await cutText(page)).map((c) => `${id}: ${c}`));
      await screenshot(page, `ready-${id}-${width}`);
      await page.getByRole('button', { name: '← All questions' }).click();
      await region.waitFor();
    }
    assert.deepEqual(cut, [], `text cut or overlapping at ${width} px`);
    assert.deepEqual(problems, []);
  });
}
