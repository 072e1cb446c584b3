// The playground as a person uses it: pick a ready scenario, break the cluster by dragging,
// go back in time, share the run, open a broken link. Assertions read what is on screen.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const {
  serve, launch, openPage, started, settled, computed, pick, expectText, expectAttr, until, clockSeconds,
  linkScenario, linkChangedFrom, screenshot,
} = require('./lib.cjs');

let server;
let browser;
test.before(async () => { server = await serve(); browser = await launch(); });
test.after(async () => { await browser.close(); server.close(); });

async function open(fragment = '') {
  const { page, problems } = await openPage(browser, server.url + fragment);
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
  await started(page);
  return { page, problems };
}

/** The etcd-only sandbox (three zones, one member each), one pick away from the start page. */
async function openEtcdSandbox() {
  const opened = await open();
  const home = await linkScenario(opened.page);
  await opened.page.getByRole('combobox', { name: 'Ready scenario' }).selectOption('three-zones');
  await linkChangedFrom(opened.page, home);
  await opened.page.locator('[data-host="etcd-1"]').waitFor();
  await settled(opened.page);
  return opened;
}

// What the status line says once the view is where it was asked to be: `expected` (a text or a
// RegExp) is waited for, and the text resolved.
const quorum = async (page, expected) => { await settled(page); return expectText(page.getByTestId('quorum'), expected); };
const leader = async (page, expected) => { await settled(page); return expectText(page.getByTestId('leader'), expected); };
const clock = async (page, expected) => { await settled(page); return expectText(page.locator('.status .clock'), expected); };
const notice = (page, expected) => expectText(page.getByRole('status').first(), expected);

/** Drags an element's centre to another element's centre with real pointer events. */
async function drag(page, from, to) {
  const a = await from.boundingBox();
  const b = await to.boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 30, a.y + a.height / 2 + 20, { steps: 4 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.up();
}

/** Scrolls to an element and starts dragging it (pressed and moved past the drag threshold). */
async function pickUp(page, el) {
  await el.scrollIntoViewIfNeeded();
  const a = await el.boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 30, a.y + a.height / 2 + 25, { steps: 4 });
}

/** Moves the scrubber to `seconds` as a person dragging it would (an input event). */
async function scrubTo(page, seconds) {
  await page.getByRole('slider', { name: 'Simulated time' }).fill(String(seconds));
}

async function step(page, times) {
  for (let i = 0; i < times; i++) await page.getByRole('button', { name: 'Step forward one second' }).click();
}

test('pick a ready scenario and see its charts and story', async () => {
  const { page, problems } = await open();
  await pick(page, 'etcd-two-of-three-die');
  assert.match(await page.locator('.scenario').textContent(), /can a three-member etcd survive losing two members\?/i);
  assert.match(await page.locator('.scenario').textContent(), /What to watch:.*force-new-cluster/);
  // The whole run is computed ahead: the charts tell the story before it is played.
  const charts = page.getByRole('img', { name: /Charts over 3:00/ });
  assert.match(await charts.getAttribute('aria-label'), /Quorum lost for 70\.1 s/);
  assert.match(await page.locator('figure.charts').textContent(), /NO QUORUM/);
  assert.match(await page.locator('figure.charts').textContent(), /etcd-1 down/);
  // Picked from the drop-down, it opens at the moment that answers it; back to the start.
  await scrubTo(page, 0, '0:00.0');
  await quorum(page, 'etcd: 3 of 3 — quorum');
  // Clicking an event of the log moves the time there.
  await page.getByRole('button', { name: /only 1 of the 3 etcd members are up and connected/ }).click();
  await quorum(page, 'etcd: 1 of 3 — NO QUORUM');
  await clock(page, /t = 0:20\.0/);
  await expectAttr(page.locator('[data-host="etcd-1"]'), 'aria-label', /DOWN/);
  await screenshot(page, 'two-of-three-no-quorum');
  // Playing at 10× moves time on; scrubbing while playing continues from the new time.
  await page.getByRole('button', { name: 'Play' }).click();
  await until(async () => (await clockSeconds(page)) >= 21, true, 'the clock past 0:21 while playing');
  await page.getByRole('button', { name: 'Pause' }).click();
  const played = await clockSeconds(page);
  assert.ok(played >= 21 && played < 180, `paused at ${played} s`);
  await page.getByRole('button', { name: 'Play' }).click();
  await scrubTo(page, 100);
  await until(async () => (await clockSeconds(page)) >= 101, true, 'the clock past 1:41 while playing on from 1:40');
  await page.getByRole('button', { name: 'Pause' }).click();
  const after = await clockSeconds(page);
  assert.ok(after >= 101 && after <= 180, `paused at ${after} s`);
  // Play at max speed to the end: writes come back after --force-new-cluster.
  await page.getByRole('combobox', { name: 'Playback speed' }).selectOption('max');
  await page.getByRole('button', { name: 'Play' }).click();
  await page.getByRole('button', { name: 'Play' }).waitFor({ timeout: 60000 });
  await clock(page, /t = 3:00\.0/);
  await quorum(page, /quorum$/);
  assert.deepEqual(problems, []);
});

test('a Kubernetes ready scenario: the rack split runs pods twice', async () => {
  const { page, problems } = await open();
  await page.getByRole('combobox', { name: 'Ready scenario' }).selectOption('4-rack-split');
  await expectText(page.locator('.scenario'), /who wins, and do pods run twice\?/);
  // Picked from the drop-down, it opens at the moment that answers it, as its card does.
  // Nine simulated minutes of a Kubernetes cluster are replayed over a few frames: the clock runs up.
  await clock(page, /t = 9:00\.0/);
  // The charts are computed ahead in the background; wait until the run is complete.
  await computed(page);
  const charts = await page.locator('figure.charts').textContent();
  for (const row of ['API writes', 'controller-mgr', 'scheduler', 'service web', 'pods web', 'DUPLICATES']) {
    assert.ok(charts.includes(row), `charts show "${row}"`);
  }
  await page.getByRole('group', { name: /^Island B: 1 of 3 etcd voter up here/ }).waitFor();
  // The log follows the cursor: the current event is scrolled into the log's view (at most every
  // 150 ms while the cursor or the report moves).
  const current = page.locator('.log li[aria-current="true"]');
  await current.waitFor();
  await until(async () => {
    const [box, item] = await Promise.all([page.locator('.log').boundingBox(), current.boundingBox()]);
    return item.y >= box.y && item.y + item.height <= box.y + box.height + 1;
  }, true, 'the current event inside the log box');
  await screenshot(page, 'rack-split-duplicates');
  assert.deepEqual(problems, []);
});

test('drag a zone into a new island, watch the leader change, scrub back, share', async () => {
  const { page, problems } = await openEtcdSandbox();
  await quorum(page, 'etcd: 3 of 3 — quorum');
  await leader(page, 'leader: etcd-3 (term 2)');
  await scrubTo(page, 20);
  await clock(page, /t = 0:20\.0/);

  // Cut zone-c (the leader's zone) off: drop its column header on "new island".
  const whole = await linkScenario(page);
  await drag(page, page.locator('[data-zone="zone-c"]'), page.locator('.new-island rect'));
  await quorum(page, 'etcd: 2 of 3 — quorum');
  await notice(page, /Recorded at 0:20\.0: partition \[zone-a, zone-b\] \| \[zone-c\]/);
  await page.getByRole('group', { name: /^Island A: 2 of 3 etcd voters up here/ }).waitFor();
  await page.getByRole('group', { name: /^Island B: 1 of 3 etcd voter up here/ }).waitFor();
  // A few seconds later the majority side has elected a new leader in a new term.
  await step(page, 3);
  await clock(page, /t = 0:23\.0/);
  await leader(page, /^leader: etcd-[12] \(term [3-9]\)$/);
  await expectText(page.getByRole('region', { name: 'What happened' }), /became the etcd leader/);
  await screenshot(page, 'zone-c-cut-off');

  // Then cut zone-b off too: the last member alone has no quorum.
  await linkChangedFrom(page, whole);
  const oneCut = await linkScenario(page);
  await drag(page, page.locator('[data-zone="zone-b"]'), page.locator('.new-island rect'));
  await quorum(page, 'etcd: 1 of 3 — NO QUORUM');
  await step(page, 2);
  await clock(page, /t = 0:25\.0/);
  const stateThen = {
    quorum: await quorum(page, /NO QUORUM/), leader: await leader(page, /^leader: /), clock: await clock(page, /t = 0:25\.0/),
  };
  await screenshot(page, 'three-islands-no-quorum');

  // Back in time, before any split: the earlier state, replayed.
  await scrubTo(page, 10);
  await clock(page, /t = 0:10\.0/);
  await quorum(page, 'etcd: 3 of 3 — quorum');
  await leader(page, 'leader: etcd-3 (term 2)');
  await scrubTo(page, 25);
  await clock(page, /t = 0:25\.0/);

  // Share: the link opens the same run at the same time in a fresh page.
  await linkChangedFrom(page, oneCut);
  await page.getByRole('button', { name: 'Share this run' }).click();
  const link = await until(() => page.getByRole('textbox', { name: 'Share link' }).inputValue(), /#s=1\.[A-Za-z0-9_-]+&t=25$/, 'the share link');
  const fresh = await open(link.slice(link.indexOf('#')));
  await clock(fresh.page, stateThen.clock);
  assert.deepEqual(
    { quorum: await quorum(fresh.page, /./), leader: await leader(fresh.page, /./), clock: await clock(fresh.page, /./) },
    stateThen,
  );
  await expectText(fresh.page.locator('.scenario'), /Your own run: 2 scheduled events/);
  await screenshot(fresh.page, 'shared-link');
  assert.deepEqual(fresh.problems, []);
  await fresh.page.close();
  assert.deepEqual(problems, []);
});

test('the keyboard does what the mouse does: host menu and move-to-island', async () => {
  const { page, problems } = await openEtcdSandbox();
  await page.locator('[data-host="etcd-1"]').focus();
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: /Actions for etcd-1/ });
  await menu.waitFor();
  await screenshot(page, 'host-menu');
  await menu.getByRole('menuitem', { name: 'Crash' }).click();
  await quorum(page, 'etcd: 2 of 3 — quorum');
  await expectAttr(page.locator('[data-host="etcd-1"]'), 'aria-label', /DOWN \(crashed\)/);
  // Undo puts the scenario back.
  await page.getByRole('button', { name: 'Undo' }).first().click();
  await quorum(page, 'etcd: 3 of 3 — quorum');
  // A zone moved from its menu, without dragging.
  await page.locator('[data-zone="zone-a"]').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('menuitem', { name: /Move to a new island/ }).click();
  await quorum(page, 'etcd: 2 of 3 — quorum');
  // Dropping the host back onto the other island puts everything together: a heal.
  await drag(page, page.locator('[data-host="etcd-1"]'), page.locator('[data-island="Island B"] rect.island'));
  await notice(page, /heal the network/);
  await expectText(page.locator('.status .network'), /whole/);
  // Isolate from the menu, then the Heal button.
  await page.locator('[data-host="etcd-2"]').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('menuitem', { name: 'Isolate from the network' }).click();
  await expectAttr(page.locator('[data-host="etcd-2"]'), 'aria-label', /isolated/);
  await quorum(page, 'etcd: 2 of 3 — quorum');
  await page.getByRole('button', { name: 'Heal network' }).click();
  await expectText(page.locator('.status .network'), /whole/);
  await quorum(page, 'etcd: 3 of 3 — quorum');
  assert.deepEqual(problems, []);
});

test('a broken or foreign link shows a message and an intact default scenario', async () => {
  // A real link cut in the middle, as a chat client or a hasty copy does.
  const first = await open();
  // The page writes its link once the browser has compressed the scenario (a moment after it shows).
  await first.page.waitForFunction(() => location.hash.startsWith('#s=1.'));
  const good = new URL(first.page.url()).hash;
  await first.page.close();
  const cut = good.slice(0, Math.floor(good.length * 0.6));
  // A well-encoded document that is not a valid scenario: the core's message names the field.
  const bad = JSON.stringify({ version: 1, name: 'x', duration: '1m', hosts: [{ name: 'a', zone: 'nowhere', roles: ['etcd'] }] });
  const badLink = '#s=1.' + zlib.deflateRawSync(Buffer.from(bad)).toString('base64url');
  // A valid scenario the page cannot hold (refused before it starts): 2,000 hosts for 7 days,
  // every worker a spot host interrupted twice a day and replaced (each replacement a new host).
  const hosts = [{ name: 'm1', roles: ['control-plane', 'etcd'] }];
  for (let i = 0; i < 1999; i++) hosts.push({ name: `w${i}`, roles: ['worker'], spot: true });
  const faults = [{ hosts: 'spot', spot_interruptions_every: '12h', replace_after: '5m' }];
  const huge = JSON.stringify({ version: 1, name: 'huge', seed: 1, duration: '168h', hosts, faults });
  const hugeLink = '#s=1.' + zlib.deflateRawSync(Buffer.from(huge)).toString('base64url');
  const cases = [
    [hugeLink, /too large for the page: 2000 hosts for 168h would need about 2\.6 GB .*clustersim -- run scenario\.json/],
    [cut, /damaged: (it is cut short|its compressed data is incomplete)/],
    ['#s=1.AAAA$$$', /damaged: character 5 is not valid/],
    [badLink, /not valid: hosts\[0\]\.zone: unknown zone "nowhere"/],
    ['#s=7.abc', /encoding "7".*newer version/],
    ['#hello-world', /not a playground scenario/],
  ];
  for (const [fragment, message] of cases) {
    const { page, problems } = await open(fragment);
    const alert = page.getByRole('alert');
    await expectText(alert, message);
    assert.match(await alert.textContent(), /Showing the default scenario instead/);
    await quorum(page, 'etcd: 3 of 3 — quorum');
    // The broken link stays in the address bar, to copy or report, until the person moves on.
    assert.equal(decodeURI(new URL(page.url()).hash), decodeURI(fragment));
    if (fragment === cut) await screenshot(page, 'broken-link');
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('at 1280×720 the "new island" dock is always at hand; a drop on nothing says so', async () => {
  const { page, problems } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 30000 });
  await page.getByRole('combobox', { name: 'Ready scenario' }).selectOption('4-rack-split');
  await page.locator('[data-host="w3"]').waitFor();
  await settled(page);
  // Scroll so the topology's own "new island" is out of view; the dock appears with the drag.
  await page.locator('figure.charts').scrollIntoViewIfNeeded();
  const kept = () => page.evaluate(() => window.keep.every((el) => el.isConnected));
  await page.evaluate(() => { window.keep = [...document.querySelectorAll('svg.topology, [data-host]')]; });
  await pickUp(page, page.locator('[data-host="w3"]'));
  const dock = page.locator('.drop-dock');
  await dock.waitFor();
  // The drag adds a ghost and the dock; the cluster itself is not drawn anew under them.
  assert.ok(await kept(), 'the topology and its hosts are the same elements during a drag');
  const d = await dock.boundingBox();
  assert.ok(d.y + d.height <= 720 && d.y >= 0, 'the dock is inside the window');
  await page.mouse.move(d.x + d.width / 2, d.y + d.height / 2, { steps: 8 });
  await page.mouse.up();
  // The rack split opens at its moment, 9:00, with rack B already cut off.
  await notice(page, /Recorded at 9:00\.0: partition/);
  await dock.waitFor({ state: 'detached' });
  // Dropped where nothing takes it (on the charts): a message, nothing recorded.
  const before = await page.locator('.scenario').textContent();
  await pickUp(page, page.locator('[data-host="m1"]'));
  // Somewhere in view outside the topology: the status line above it or the controls below.
  let spot = null;
  for (const sel of ['.status', '.controls']) {
    const box = await page.locator(sel).first().boundingBox();
    if (box && box.y >= 0 && box.y + box.height <= 720) { spot = box; break; }
  }
  assert.ok(spot, 'a place outside the topology in view');
  await page.mouse.move(spot.x + spot.width - 30, spot.y + spot.height / 2, { steps: 6 });
  await page.mouse.up();
  await notice(page, /m1 was dropped outside any island: nothing changed/);
  assert.equal(await page.locator('.scenario').textContent(), before);
  assert.deepEqual(problems, []);
});

test('a fork lists the later events it drops, and can keep them', async () => {
  const { page, problems } = await open();
  await page.getByRole('combobox', { name: 'Ready scenario' }).selectOption('etcd-two-of-three-die');
  await scrubTo(page, 10);
  await clock(page, /t = 0:10\.0/);
  await page.locator('[data-host="etcd-3"]').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('menu', { name: /Actions for etcd-3/ }).getByRole('menuitem', { name: 'Isolate from the network' }).click();
  const status = page.getByRole('status').first();
  const text = await expectText(status, /drops the scenario's later events/);
  assert.match(text, /drops the scenario's later events: 0:20 crash etcd-1; 0:20 crash etcd-2; 1:00 join etcd-4; 1:30 .*etcd-3; 2:00 .*etcd-4/);
  await expectText(page.locator('.scenario'), /Your own run: 1 scheduled event\b/);
  await page.getByRole('button', { name: 'Keep the later events' }).click();
  await expectText(status, /Kept the 5 later events/);
  await expectText(page.locator('.scenario'), /Your own run: 6 scheduled events/);
  // The scenario still carries the ready one's name: the page offers a new one.
  const rename = page.getByRole('form', { name: 'Rename the scenario' });
  await rename.getByRole('textbox', { name: 'New scenario name' }).fill('Two of three die, etcd-3 cut off first');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expectText(page.locator('.scenario'), /Two of three die, etcd-3 cut off first/);
  await page.getByRole('form', { name: 'Rename the scenario' }).waitFor({ state: 'detached' });
  assert.deepEqual(problems, []);
});
