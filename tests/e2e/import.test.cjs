// The import page (import/): a person pastes what kubectl printed about their cluster, reads what
// could not be carried over, and opens the result in the playground; and the other way round, a
// scenario's kind files offered as downloads, the same files as `clustersim export kind` writes.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { serve, launch, openPage, openApp, started, expectText, screenshot, until } = require('./lib.cjs');

let server;
let browser;
test.before(async () => { server = await serve(); browser = await launch(); });
test.after(async () => { await browser.close(); server.close(); });

const clusters = path.join(__dirname, '../../crates/import/tests/clusters');
const dump = ['kubeadm.yaml', 'kube-system.yaml']
  .map((f) => fs.readFileSync(path.join(clusters, f), 'utf8')).join('\n---\n');

test('import: a kubeadm cluster pasted, what was left out listed, opened in the playground', async () => {
  // From the playground's scenario picker.
  const { page: playground, problems: before } = await openApp(browser, server.url);
  const link = playground.getByRole('link', { name: 'Import your cluster' });
  await link.click();
  await playground.getByRole('heading', { name: 'Import your cluster' }).waitFor();
  assert.deepEqual(before, []);

  const { page, problems } = await openPage(browser, `${server.url}import/`);
  await page.getByRole('heading', { name: 'Import your cluster' }).waitFor();
  await expectText(page.locator('.tagline'), /nothing you paste or choose is sent anywhere/);
  // Nothing given: the page says what to do.
  await page.getByRole('button', { name: 'Import' }).click();
  await expectText(page.getByRole('alert'), /^Paste the output of the commands above/);

  await page.getByRole('textbox', { name: 'Cluster objects (YAML or JSON)' }).fill(dump);
  await page.getByRole('button', { name: 'Import' }).click();
  await expectText(page.getByRole('status'), /^“imported cluster”: 6 hosts and 4 workloads\.$/);
  const notes = await page.locator('.import-notes li').allTextContents();
  assert.ok(notes.includes('ignored: 1 Secret'), notes.join('\n'));
  assert.ok(notes.includes('Deployment default/web: maxSkew 2 imported as 1'), notes.join('\n'));
  // What to try first: four breakages, each a link to the playground.
  const tour = await page.locator('.import-tour li a').allTextContents();
  assert.equal(tour.length, 4, tour.join('\n'));
  assert.equal(tour[0], 'Lose its biggest zone (eu-west-1a)');
  assert.equal(tour[3], 'Lose two masters (cp-1-example-internal, cp-2-example-internal)');
  await screenshot(page, 'import');

  // Opened: the playground runs it, its hosts named after the Nodes.
  await page.getByRole('link', { name: 'Open it in the playground' }).click();
  await started(page);
  await page.locator('.host', { hasText: 'cp-1-example-internal' }).first().waitFor();
  await expectText(page.locator('.scenario select'), /imported cluster/);
  assert.deepEqual(problems, []);
});

test('import: a step of the tour opens the imported cluster with its breakage', async () => {
  const { page, problems } = await openPage(browser, `${server.url}import/`);
  await page.getByRole('textbox', { name: 'Cluster objects (YAML or JSON)' }).fill(dump);
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByRole('link', { name: 'Lose two masters (cp-1-example-internal, cp-2-example-internal)' }).click();
  await started(page);
  // Its two crashes are the run's events, at 1:00.
  await page.locator('.log', { hasText: 'cp-2-example-internal went down: the scenario crashed it' }).first().waitFor();
  // It explains itself as a ready scenario does: its breakage as its name, what to watch first.
  await expectText(page.locator('.scenario .name'),
    /^imported cluster: Lose two masters \(cp-1-example-internal, cp-2-example-internal\) — Both crash at 1:00\. Watch whether etcd keeps quorum, and what still works without the API\./);
  await screenshot(page, 'import-tour-step');
  assert.deepEqual(problems, []);
});

test('import: each command copies with one click; files dropped on the box are read', async () => {
  const { page, problems } = await openPage(browser, `${server.url}import/`);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  const copy = page.getByRole('button', { name: 'Copy', exact: true });
  assert.equal(await copy.count(), 2);
  await copy.nth(1).click();
  await until(() => page.evaluate(() => navigator.clipboard.readText()),
    'kubectl -n kube-system get pods,configmap/kubeadm-config -o yaml > kube-system.yaml', 'the second command copied');
  // Dropped as a person drops two files from a file manager.
  const files = ['kubeadm.yaml', 'kube-system.yaml'].map((f) => [f, fs.readFileSync(path.join(clusters, f), 'utf8')]);
  const dropped = await page.evaluateHandle((files) => {
    const dt = new DataTransfer();
    for (const [name, text] of files) dt.items.add(new File([text], name, { type: 'text/yaml' }));
    return dt;
  }, files);
  await page.locator('.import-input').dispatchEvent('dragover', { dataTransfer: dropped });
  await page.locator('.import-input').dispatchEvent('drop', { dataTransfer: dropped });
  await expectText(page.locator('.read-files'), /^Files read: kubeadm\.yaml, kube-system\.yaml$/);
  await page.getByRole('button', { name: 'Import' }).click();
  await expectText(page.getByRole('status'), /^“imported cluster”: 6 hosts and 4 workloads\.$/);
  await screenshot(page, 'import-dropped');
  assert.deepEqual(problems, []);
});

test('import: a file that is not YAML is refused, naming the line', async () => {
  const { page, problems } = await openPage(browser, `${server.url}import/`);
  await page.getByRole('textbox', { name: 'Cluster objects (YAML or JSON)' }).fill('kind: Node\nmetadata: {name: a\n  bad');
  await page.getByRole('button', { name: 'Import' }).click();
  await expectText(page.getByRole('alert'), /^the pasted text:4: not YAML: /);
  assert.deepEqual(problems, []);
});

/** The text of a download link's data: address. */
async function linked(page, name) {
  const href = await page.getByRole('link', { name, exact: true }).getAttribute('href');
  assert.match(href, /^data:text\/plain;charset=utf-8,/);
  return decodeURIComponent(href.slice(href.indexOf(',') + 1));
}

test('kind: the playground\'s scenario as kind files, the runner\'s own, downloaded as a person would', async () => {
  const { page, problems } = await openApp(browser, server.url);
  await started(page);
  await page.getByRole('link', { name: 'Try it on kind' }).click();
  await page.getByRole('heading', { name: /^“.*” on a kind cluster$/ }).waitFor();
  const names = await page.locator('.kind-downloads a').allTextContents();
  assert.deepEqual(names, ['kind.yaml', 'workloads.yaml', 'faults.sh', 'expected.md', 'README.md']);
  // README.md is open first: it says what to run.
  await expectText(page.locator('.kind-files details[open] pre'), /kind create cluster --config kind\.yaml/);
  await screenshot(page, 'kind-export');

  // The files the runner writes for the same scenario (the playground's first ready one), byte for byte.
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-'));
  execFileSync('cargo', ['run', '-q', '-p', 'clustersim', '--', 'export', 'kind',
    path.join(__dirname, '../../web/scenarios/k8s-three-zones.json'), '--out', out]);
  for (const name of names) {
    assert.equal(await linked(page, name), fs.readFileSync(path.join(out, name), 'utf8'), name);
  }
  // A click downloads the file under its name.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'kind.yaml', exact: true }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'kind.yaml');
  const saved = fs.readFileSync(await download.path(), 'utf8');
  assert.match(saved, /^kind: Cluster$/m);
  assert.equal(saved.match(/^- role: control-plane/gm).length, 3);
  assert.deepEqual(problems, []);
});

test('kind: an imported cluster\'s kind files, and a scenario kind cannot run refused', async () => {
  const { page, problems } = await openPage(browser, `${server.url}import/`);
  await page.getByRole('textbox', { name: 'Cluster objects (YAML or JSON)' }).fill(dump);
  await page.getByRole('button', { name: 'Import' }).click();
  await page.getByRole('button', { name: 'Try it on kind' }).click();
  await page.getByRole('heading', { name: '“imported cluster” on a kind cluster' }).waitFor();
  // The imported Nodes, each a kind node with its zone.
  const kind = await linked(page, 'kind.yaml');
  assert.match(kind, /# cp-1-example-internal \(sim-control-plane\)\n  labels:\n    topology\.kubernetes\.io\/zone: eu-west-1a/);
  assert.deepEqual(problems, []);

  // An etcd-only scenario has no control plane for kind: refused, saying why.
  const { page: playground } = await openApp(browser, server.url);
  await playground.getByRole('combobox', { name: 'Ready scenario' }).selectOption('etcd-leader-dies');
  await started(playground);
  await playground.getByRole('link', { name: 'Try it on kind' }).click();
  await expectText(playground.getByRole('alert'), /^nothing to run on kind: the scenario has no control-plane host/);
});
