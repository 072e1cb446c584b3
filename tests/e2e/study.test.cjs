// The study page (study/): a scenario's availability over many random trials, run in Web Workers,
// reached from the playground and back.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { serve, launch, openPage, openApp, scrubTo, until, expectText, screenshot, catalog } = require('./lib.cjs');
const { fragment, clock } = require('./bench.cjs');

let server;
let browser;
test.before(async () => { server = await serve(); browser = await launch(); });
test.after(async () => { await browser.close(); server.close(); });

const decode = (v) => zlib.inflateRawSync(Buffer.from(v.slice(2), 'base64url')).toString();

// Three members, each down a fraction p = MTTR / (MTBF + MTTR) = 10 / 110 of the time.
const ETCD = {
  version: 1, name: 'three etcd members', duration: '1h',
  hosts: [1, 2, 3].map((i) => ({ name: `etcd-${i}`, roles: ['etcd'] })),
  faults: [{ hosts: 'all', mtbf: '100h', mttr: '10h' }],
};

/** A figure cell of the results table: its mean and interval, in percent. */
async function figure(page, row, column) {
  const cell = page.locator('.study-figures tbody tr', { hasText: row }).locator('td').nth(column);
  const mean = Number((await cell.locator('strong').textContent()).replace(' %', ''));
  const [lo, hi] = (await cell.locator('.ci').textContent()).match(/[\d.]+/g).map(Number);
  return { mean, lo, hi };
}

test('study: 3 and 5 etcd members in workers, as the closed form and the runner say', async () => {
  // Every value the progress bar takes, recorded in the page as it changes.
  const { page, problems } = await openPage(browser,
    `${server.url}study/${fragment(ETCD)}&trials=400&days=30&seed=1&vs=two-more-masters`, undefined, () => {
      window.__progress = [];
      new MutationObserver(() => {
        const bar = document.querySelector('.study-progress progress');
        const value = bar && Number(bar.getAttribute('value'));
        if (bar && window.__progress[window.__progress.length - 1] !== value) window.__progress.push(value);
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['value'] });
    });
  await page.getByRole('heading', { name: 'Availability study' }).waitFor({ timeout: 30000 });
  assert.equal(await page.getByRole('combobox', { name: 'Compare with' }).inputValue(), 'two-more-masters');
  await page.getByRole('button', { name: 'Run the study' }).click();
  // A progress bar that moves while the workers run, and the page answers meanwhile: a question
  // to the page comes back while the bar is still there.
  const bar = page.locator('.study-progress progress');
  await bar.waitFor({ timeout: 30000 });
  assert.ok(await page.evaluate(() => document.querySelector('.study-progress progress') !== null),
    'the page answered only once the study was done');
  await page.getByRole('region', { name: 'Results' }).waitFor({ timeout: 180000 });
  const seen = await page.evaluate(() => window.__progress);
  assert.ok(seen.some((v) => v > 0 && v < 1000) && new Set(seen).size >= 2, `the progress bar moved: ${seen}`);
  const three = await figure(page, 'etcd quorum lost', 0);
  const five = await figure(page, 'etcd quorum lost', 1);
  // Quorum is lost while 2 of 3 (3q² − 2q³) or 3 of 5 (10q³ − 15q⁴ + 6q⁵) are down, where a
  // member is down with probability q. A trial starts with every member up, so at hour t
  // q = p(1 − e^(−t/τ)), p = MTTR / (MTBF + MTTR), τ = 1 / (1/MTBF + 1/MTTR): the figure is the
  // mean over the trial's 720 hours (2.29 % and 0.64 %; 2.33 % and 0.65 % in the long run).
  const [p, tau, hours] = [10 / 110, 1 / (1 / 100 + 1 / 10), 720];
  const mean = (f) => {
    let sum = 0;
    for (let i = 0; i < 10000; i++) sum += f(p * (1 - Math.exp(-((i + 0.5) * hours / 10000) / tau)));
    return 100 * sum / 10000;
  };
  const closed3 = mean((q) => 3 * q ** 2 - 2 * q ** 3);
  const closed5 = mean((q) => 10 * q ** 3 - 15 * q ** 4 + 6 * q ** 5);
  assert.ok(three.lo <= closed3 && closed3 <= three.hi, `3 members: ${closed3} in ${JSON.stringify(three)}`);
  assert.ok(five.lo <= closed5 && closed5 <= five.hi, `5 members: ${closed5} in ${JSON.stringify(five)}`);
  assert.ok(five.hi < three.lo, 'five members lose quorum less often than three');
  // How often: the mean time to the first loss of quorum, against the birth–death chain of
  // members down (each fails at 1/100 h, is repaired at 1/10 h; quorum lost at 2 of 3, 3 of 5
  // down): 250 h for three members. Each sentence has its units and its interval.
  const firstPassage = (n, lost) => {
    const [lambda, mu] = [1 / 100, 1 / 10];
    // T[k]: expected hours to reach `lost` down from k down, by value iteration.
    let T = new Array(lost + 1).fill(0);
    for (let it = 0; it < 200000; it++) {
      const next = T.slice();
      for (let k = 0; k < lost; k++) {
        const up = (n - k) * lambda, down = k * mu, out = up + down;
        next[k] = 1 / out + (up / out) * T[k + 1] + (down / out) * (k > 0 ? T[k - 1] : 0);
      }
      T = next;
    }
    return T[0];
  };
  const inHours = (text) => text.split(' ').reduce((acc, w, i, all) =>
    acc + (all[i + 1] === 'd' ? Number(w) * 24 : all[i + 1] === 'h' ? Number(w) : all[i + 1] === 'min' ? Number(w) / 60 : 0), 0);
  const lines = await page.locator('.study-answer p').allTextContents();
  for (const [i, n, lost] of [[0, 3, 2], [1, 5, 3]]) {
    const m = lines[i].match(/etcd quorum lost: in ([\d.]+) % of years \[([\d.]+) – ([\d.]+) %\]; mean time to the first loss ([\w ]+) \[([\w ]+) – ([\w ]+)\]/);
    assert.ok(m, lines[i]);
    const [mean, lo, hi] = [inHours(m[4]), inHours(m[5]), inHours(m[6])];
    const expected = firstPassage(n, lost);
    assert.ok(lo <= expected && expected <= hi, `${n} members: ${expected} h in [${lo}, ${hi}] (${mean} h)`);
  }
  await expectText(page.locator('.study-answer .verdict'),
    /^“the same cluster with 5 etcd members” loses quorum less often than “this cluster”: their intervals do not overlap\. Why: five members/);
  // The same trials as `clustersim study`: the same mean, to the digits shown.
  const file = path.join(os.tmpdir(), 'study-etcd.json');
  fs.writeFileSync(file, JSON.stringify(ETCD));
  const text = execFileSync('cargo',
    ['run', '-q', '-p', 'clustersim', '--', 'study', file, '--trials', '400', '--horizon', '720h', '--seed', '1', '--json'],
    { encoding: 'utf8' });
  const report = JSON.parse(text);
  assert.equal(three.mean.toFixed(3), (100 * report.etcd.quorum_unavailability.mean).toFixed(3));
  // The spread over trials, one line per design, and the worst trials (30 days: replayed natively).
  assert.equal(await page.locator('.cdf-chart path.cdf').count(), 2);
  const worst = page.locator('.worst-design').first().locator('li');
  assert.equal(await worst.count(), 5);
  const most = report.per_trial.slice().sort((a, b) => b.etcd_quorum_lost_s - a.etcd_quorum_lost_s || a.trial - b.trial)[0];
  const [, trial, seed] = (await worst.first().textContent())
    .match(/^trial (\d+) \(seed (\d+)\): [\d.]+ %, first lost after \d+ (?:d \d+ h|d|h \d+ min|h|min \d+ s|min|s) clustersim run scenario.json --seed (?:\2) --duration 720h$/);
  assert.equal(Number(trial), most.trial);
  // Seeds are u64s: compared as the runner's text writes them.
  assert.match(text, new RegExp(`"trial": ${trial},\\s*"seed": ${seed},`));
  await screenshot(page, 'study-etcd-three-vs-five');
  // Cancel stops a running study: the bar goes, Run comes back, and no result appears.
  await page.getByRole('spinbutton', { name: 'Trials' }).fill('2000');
  await page.getByRole('spinbutton', { name: 'Trials' }).dispatchEvent('change');
  await page.getByRole('button', { name: 'Run the study' }).click();
  await bar.waitFor({ timeout: 30000 });
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Run the study' }).waitFor({ timeout: 30000 });
  assert.equal(await bar.count(), 0);
  assert.equal(await page.getByRole('region', { name: 'Results' }).count(), 0);
  assert.deepEqual(problems, []);
});

test('study: from the playground, spot workers, and the worst trial opened as a run', async () => {
  const { page, problems } = await openApp(browser, server.url);
  await page.getByRole('link', { name: 'Availability study' }).click();
  await page.getByRole('heading', { name: 'Availability study' }).waitFor({ timeout: 30000 });
  await page.getByRole('combobox', { name: 'Faults' }).selectOption('spot');
  // The spot model's defaults: an instance type of 5–10 % interruptions a month (studied at
  // 7.5 %: one every 9235 h), replaced 5 minutes after the termination.
  await expectText(page.locator('.faults'), /spot hosts \(every spot host\): each interrupted every 13 months on average \(a 2-minute notice\), replaced 5 min after the termination/);
  await expectText(page.locator('.spot-model'), /each instance is interrupted every 13 months on average/);
  await page.getByRole('combobox', { name: 'Compare with' }).selectOption('external-etcd');
  await page.getByRole('spinbutton', { name: 'Trials' }).fill('6');
  await page.getByRole('spinbutton', { name: 'Trials' }).dispatchEvent('change');
  await until(async () => page.url(), /trials=6&days=7&seed=1&faults=spot&vs=external-etcd&spot=5-10&replace=after-termination&replace_min=5$/, 'the study\'s address');
  await page.getByRole('button', { name: 'Run the study' }).click();
  await page.getByRole('region', { name: 'Results' }).waitFor({ timeout: 300000 });
  const rows = await page.locator('.study-figures tbody th').allTextContents();
  assert.deepEqual(rows, ['etcd quorum lost', 'API writes failed', 'Service web: requests failed']);
  const designs = await page.locator('.study-figures thead th').allTextContents();
  assert.deepEqual(designs.slice(1), ['this cluster', 'the same cluster with external etcd']);
  await screenshot(page, 'study-spot-workers');
  // The worst trial of the figure shown opens in the playground with its seed over its 7 days,
  // 10 s before it first lost that figure.
  const first = page.locator('.worst-design li').first();
  const seed = (await first.textContent()).match(/seed (\d+)/)[1];
  // In words with their units ("first lost after 2 d 5 h"), the exact second kept beside them.
  await expectText(first.locator('.first-lost'), /first lost after \d+ (d \d+ h|d|h \d+ min|h|min \d+ s|min|s)$/);
  const lostAt = Number(await first.locator('.first-lost').getAttribute('data-first-s'));
  await first.getByRole('button', { name: 'Open it in the playground' }).click();
  await page.getByRole('heading', { level: 1, name: 'Kubernetes HA Playground' }).waitFor({ timeout: 30000 });
  assert.ok(Math.abs(Number(new URL(page.url()).hash.match(/&t=([\d.]+)/)[1]) - (lostAt - 10)) < 0.001);
  // Its random faults come later (none in its first 30 hours): while the week is computed, the
  // faults row does not claim the run has none.
  await page.locator('figure.charts', { hasText: 'none so far (the run is still being computed)' }).waitFor({ timeout: 30000 });
  // The clock says where the view is going while the run is computed up to there.
  await page.locator('.status .clock', { hasText: ` → ${clock(lostAt - 10).replace(/\.\d$/, '')} / 168:00:00` }).waitFor({ timeout: 30000 });
  // The week is computed to that time first (about a minute on a slow two-core machine): the
  // clock says where the view is, the status line is busy until it is there.
  await page.locator('.status[aria-busy="false"] .clock', { hasText: `t = ${clock(lostAt - 10)}` }).waitFor({ timeout: 300000 });
  const raw = decode(new URL(page.url()).hash.match(/s=([^&]+)/)[1]);
  const opened = JSON.parse(raw);
  // The seed is a u64: read from the text (a JS number would round it).
  assert.match(raw, new RegExp(`"seed":${seed}[,}]`));
  assert.equal(await page.locator('figure.charts', { hasText: 'nothing is broken in this run' }).count(), 0);
  assert.doesNotMatch(await page.locator('.status .clock').textContent(), /→/);
  // A week keeps checkpoints (about one a day, within the page's memory) on the way there, so
  // going back into it starts from one instead of from 0:00 (about 40 s here without them).
  const kept = Number((await page.locator('main').getAttribute('data-diag')).match(/checkpoints=(\d+)/)[1]);
  assert.ok(kept >= 3, `checkpoints kept on the way to day 5: ${kept}`);
  const back = Math.floor(lostAt / 86400) * 86400;
  await scrubTo(page, back);
  await page.locator('.status[aria-busy="false"] .clock', { hasText: `t = ${clock(back)}` }).waitFor({ timeout: 180000 });
  assert.equal(opened.duration, '168h');
  assert.equal(opened.faults.length, 2);
  assert.deepEqual(problems, []);
});

test('study: a broken setting is named, a long study shows the runner command', async () => {
  // etcd alone has no load balancer to check by TCP: that design is refused too.
  const { page, problems } = await openPage(browser, `${server.url}study/${fragment(ETCD)}&trials=0&faults=meteor&vs=tcp-check`);
  await page.getByRole('alert').filter({ hasText: 'not understood (trials=0, faults=meteor, vs=tcp-check)' }).waitFor({ timeout: 30000 });
  assert.equal(await page.getByRole('spinbutton', { name: 'Trials' }).inputValue(), '52');
  // The playground's default cluster for 10,000 years: the runner's work.
  await page.goto(`${server.url}study/#trials=10000&days=365&faults=spot`);
  await page.reload();
  const note = page.locator('.too-long');
  await note.waitFor({ timeout: 30000 });
  assert.equal(await note.locator('code:not(.job)').textContent(),
    'clustersim study scenario.json --trials 10000 --horizon 8760h --seed 1 --json');
  // Or as a Kubernetes Job, in enough pods that each part takes about a quarter of an hour.
  const job = await note.locator('code.job').textContent();
  const [, shards] = job.match(/^SEED=1 deploy\/run-study\.sh scenario\.json (\d+) 10000 8760h$/) ?? [];
  assert.ok(Number(shards) >= 2 && Number(shards) <= 10000, job);
  await screenshot(page, 'study-too-long');
  const saved = decodeURIComponent((await note.getByRole('link', { name: 'Save scenario.json' }).getAttribute('href')).split(',')[1]);
  assert.equal(JSON.parse(saved).faults[1].spot_interruptions_every, '9235h');
  assert.deepEqual(problems, []);
});

test('study: a ready study of spot masters opens with its question, and its run shows its answer', async () => {
  const { page, problems } = await openPage(browser, `${server.url}study/`);
  await page.getByRole('heading', { name: 'Availability study' }).waitFor({ timeout: 30000 });
  await page.getByRole('combobox', { name: 'Ready studies' })
    .selectOption({ label: 'Spot masters: replace a reclaimed one after its termination, or act on its notice?' });
  // The ready scenario, with the study's settings in the link.
  await until(async () => page.url(), /&trials=40&days=1&seed=1&faults=scenario&vs=on-notice&spot=scenario&replace=after-termination&replace_min=5$/, 'the ready study\'s address');
  await page.getByRole('heading', { name: 'Availability study' }).waitFor({ timeout: 30000 });
  await expectText(page.locator('.ready-answer'), /^What it shows: Acting on the notice loses quorum far less/);
  await expectText(page.locator('.spot-model'), /As the scenario says: each instance is interrupted every 1 h on average/);
  await page.getByRole('button', { name: 'Run the study' }).click();
  await page.getByRole('region', { name: 'Results' }).waitFor({ timeout: 600000 });
  // The page's own verdict agrees with the answer it showed.
  await expectText(page.locator('.study-answer .verdict'),
    /^“the same cluster, each etcd member removed on its notice” loses quorum less often than “this cluster”: their intervals do not overlap\./);
  await screenshot(page, 'study-spot-on-notice');
  assert.deepEqual(problems, []);
});

/** A translated template as a regular expression: `{0}`, `{1}`… stand for anything. */
const template = (text) => new RegExp(text.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\d\}/g, '.+?'));

for (const code of ['ru', 'zh', 'de']) {
  test(`study: in ${code}, with a language picker, at 1400 and 390 px, a trial opened in ${code} with its own description`, async () => {
    const words = catalog(code);
    // The spot masters' scenario at its own rate (a reclaim an hour): a day's trial loses quorum.
    const spot = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'scenarios', '6-spot-replaced-automatically.json'), 'utf8'));
    for (const width of [390, 1400]) {
      const { page, problems } = await openPage(browser, `${server.url}study/?lang=${code}${fragment(spot)}&trials=2&days=1&spot=scenario`, { width, height: 900 });
      await page.getByRole('heading', { name: words.get('Availability study') }).waitFor({ timeout: 30000 });
      assert.equal(await page.locator('select.language').inputValue(), code);
      const settings = await page.locator('.study-settings').innerText();
      for (const english of ['Trials', 'Seed', 'Faults', 'Compare with', 'Each trial lasts', 'every host', 'fails every', 'on average']) {
        assert.ok(!settings.includes(english), `${code}: "${english}" in: ${settings}`);
      }
      // Durations with their units, in the language: no "1440h".
      assert.doesNotMatch(settings, /\d+h\b/);
      await page.locator('.study-run button.primary').click();
      await page.locator('.study-results').waitFor({ timeout: 300000 });
      await screenshot(page, `study-${code}-${width}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      const wide = await page.evaluate(() => [...document.querySelectorAll('main *')]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .slice(0, 5).map((e) => `${e.tagName}.${e.className}`));
      assert.equal(overflow, 0, `${code}: the study page scrolls sideways at ${width} px: ${wide}`);
      if (width === 1400) {
        await page.locator('.worst-design li button').first().click();
        // The playground, in the language still.
        await until(async () => page.url(), new RegExp(`^(?!.*/study/).*\\?lang=${code}#s=`), 'the playground\'s address');
        const raw = zlib.inflateRawSync(Buffer.from(new URL(page.url()).hash.match(/s=([^&]+)/)[1].slice(2), 'base64url')).toString();
        const opened = JSON.parse(raw);
        assert.match(opened.name, template(words.get('{} — trial {} of its study')));
        assert.match(opened.description, template(words.get('Trial {} (seed {}) of an availability study of “{}”, over {} days: {}. Its random faults: {}.')));
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
}
