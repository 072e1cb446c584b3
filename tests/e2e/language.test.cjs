// The page in each language, as its readers open it: `?lang=`, the browser's own language, the
// picker (which keeps the run), a share link without the language, an unknown language named.
// Screenshots (tests/e2e/screenshots/lang-*.png) are for looking at long German words and CJK text.
const test = require('node:test');
const assert = require('node:assert/strict');
const { serve, launch, openPage, started, settled, computed, until, screenshot, catalog } = require('./lib.cjs');

let server;
let browser;
test.before(async () => { server = await serve(); browser = await launch(); });
test.after(async () => { await browser.close(); server.close(); });

const TAGLINE = 'Break a cluster and watch what really happens. Drag a zone or host to split the network; click a host to crash it.';
const QUESTION = 'My only master died: does my app keep serving?';
const RACK_SPLIT = 'Two racks split: who wins, and do pods run twice?';

/** The log's texts of the ready scenario `id` at its moment, in the page opened at `query`. */
async function logOf(page, id) {
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
  await started(page);
  await page.locator(`button.question[data-ready="${id}"]`).click();
  // The log grows while the run is computed: read it whole.
  await computed(page);
  await settled(page);
  return page.locator('.log li .what').allTextContents();
}

/** The page's texts a reader sees or hears (text, aria-label, title, placeholder), but the
 *  console's screen (kubectl prints English, as the real tool does). */
function pageTexts(page) {
  return page.evaluate(() => {
    const parts = [];
    const walk = (n) => {
      if (n.nodeType === 3) parts.push(n.textContent);
      else if (n.nodeType === 1 && !n.matches('.console-screen, script, style')) {
        for (const a of ['aria-label', 'title', 'placeholder']) if (n.getAttribute(a)) parts.push(n.getAttribute(a));
        n.childNodes.forEach(walk);
      }
    };
    walk(document.body);
    return parts;
  });
}

/** English words no Russian, Chinese or German sentence has. */
const ENGLISH = /(^|[\s(])(the|is|are|its|and|of|to|from|with|not|press|click|drag)(?=[\s,.:;)])/i;

for (const code of ['ru', 'zh', 'de']) {
  test(`?lang=${code} writes the page and the log in that language`, async () => {
    const words = catalog(code);
    const en = await openPage(browser, `${server.url}`);
    const english = await logOf(en.page, '1-only-master-dies');
    await en.page.close();
    for (const width of [1400, 390]) {
      const { page, problems } = await openPage(browser, `${server.url}?lang=${code}`, { width, height: 900 });
      const texts = await logOf(page, '1-only-master-dies');
      assert.equal(await page.locator('.tagline').textContent(), words.get(TAGLINE));
      assert.equal(await page.locator('.about .name strong').textContent(), words.get(QUESTION));
      // The same events, each in the language (names and numbers kept).
      assert.equal(texts.length, english.length);
      texts.forEach((t, i) => assert.notEqual(t, english[i], `${code}: "${english[i]}" is not translated`));
      assert.equal(await page.locator('select.language').inputValue(), code);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${code} scrolls sideways at ${width} px`);
      await screenshot(page, `lang-${code}-${width}`);
      if (width === 1400) {
        // Every text of a busy page in the language: a split cluster, its menus' labels, the editor.
        await page.locator('button.all-questions').click();
        await page.locator('button.question[data-ready="4-rack-split"]').click();
        await page.locator('.status .clock', { hasText: /t = [1-9]/ }).waitFor({ timeout: 30000 });
        await settled(page);
        await page.locator('section.editor button.disclosure').click();
        await page.locator('section.editor #editor-body').waitFor();
        const english = (await pageTexts(page)).filter((t) => ENGLISH.test(t));
        assert.deepEqual(english, [], `${code}: English left in the page`);
        // An edit keeps the ready scenario's question and description in the language, marked
        // as changed (the scenario has become the reader's own).
        const zone = page.getByRole('form', { name: words.get('Add a zone') });
        await zone.getByRole('textbox', { name: words.get('New zone name') }).fill('rack-c');
        await zone.getByRole('button', { name: words.get('Add zone') }).click();
        const changed = words.get('{} (changed)').replace('{0}', words.get(RACK_SPLIT));
        await page.locator('.about .name strong', { hasText: changed }).waitFor({ timeout: 30000 });
        const left = (await pageTexts(page)).filter((t) => ENGLISH.test(t));
        assert.deepEqual(left, [], `${code}: English left in the page after an edit`);
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
}

test('the browser language is the default, the picker switches and keeps the run, a shared link has no language', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, locale: 'de-AT' });
  page.setDefaultTimeout(30000);
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(server.url);
  await logOf(page, '4-rack-split');
  const de = catalog('de');
  assert.equal(await page.locator('.tagline').textContent(), de.get(TAGLINE));
  const fragment = await page.evaluate(() => location.hash);
  assert.match(fragment, /s=1\./);
  await page.locator('select.language').selectOption('ru');
  await page.waitForURL(/\?lang=ru#/);
  await page.locator('.tagline', { hasText: catalog('ru').get(TAGLINE) }).waitFor({ timeout: 30000 });
  await until(() => page.getByRole('combobox', { name: catalog('ru').get('Ready scenario') }).inputValue(), '4-rack-split', 'the ready scenario picked');
  assert.equal(await page.evaluate(() => location.hash), fragment);
  await page.getByRole('button', { name: catalog('ru').get('Share this run') }).click();
  const link = await page.locator('.share-box input').inputValue();
  assert.ok(link.includes('#s=1.'), link);
  assert.ok(!link.includes('lang='), `the shared link carries no language: ${link}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an unknown language is named, and the page stays in English', async () => {
  const { page } = await openPage(browser, `${server.url}?lang=fr`);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
  await page.locator('.notice', { hasText: 'unknown language "fr"' }).waitFor({ timeout: 30000 });
  assert.equal(await page.locator('.tagline').textContent(), TAGLINE);
  await page.close();
});
