// The console in the page: a person opens it, types kubectl and etcdctl at a moment of a run,
// reads what the real tools would print, changes the cluster, and shares the forked run.
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  serve, launch, openApp, settled, pick, scrubTo, until, expectText, linkScenario, linkChangedFrom, screenshot,
} = require('./lib.cjs');

let server;
let browser;
test.before(async () => { server = await serve(); browser = await launch(); });
test.after(async () => { await browser.close(); server.close(); });

const open = (fragment = '') => openApp(browser, server.url + fragment);
const openConsole = (page) => page.getByText('Console: kubectl, etcdctl and curl').click();

/** A ready scenario at a moment, with its console open. */
async function consoleAt(id, seconds, shown) {
  const { page, problems } = await open();
  await pick(page, id);
  await scrubTo(page, seconds, shown);
  await openConsole(page);
  return { page, problems };
}

/** Types `line` into the console and presses Enter; resolves to the text of its entry. */
async function run(page, line) {
  const input = page.getByRole('textbox', { name: 'Console command' });
  const before = await page.locator('.console-screen .entry').count();
  await input.fill(line);
  await input.press('Enter');
  // The command runs in the simulation's worker: its entry is pending until the output comes.
  const entry = page.locator('.console-screen .entry:not(.pending)').nth(before);
  await entry.waitFor({ timeout: 30000 });
  return entry.textContent();
}

/** The rows of a table the console printed, as arrays of cells. */
const rows = (text) => text.split('\n').map((l) => l.trim().split(/\s+/));

test('console: kubectl get nodes at the moment a worker is NotReady, from the chosen host', async () => {
  // w3 crashes at 1:00; the controller marks it NotReady 40–55 s later (the 50 s grace).
  const { page, problems } = await consoleAt('7-worker-dies', 110, '1:50.0');
  // The prompt names the vantage host and the time shown.
  const hosts = page.getByRole('combobox', { name: 'Console host' });
  await expectText(page.locator('.console-screen .input-line .prompt'), /^\[1:50\.0\] root@\S+:~#$/);

  const out = await run(page, 'kubectl get nodes');
  const table = rows(out);
  assert.ok(out.includes('NAME') && out.includes('STATUS') && out.includes('AGE'), out);
  const w3 = table.find((r) => r[0] === 'w3');
  const w1 = table.find((r) => r[0] === 'w1');
  assert.equal(w3?.[1], 'NotReady', out);
  assert.equal(w1?.[1], 'Ready', out);

  // Why: the controller marked it Unknown once its lease went stale, and tainted it.
  const described = await run(page, 'kubectl describe node w3');
  assert.match(described, /Taints:\s+node\.kubernetes\.io\/unreachable:NoExecute/);
  assert.match(described, /Ready\s+Unknown .*NodeStatusUnknown\s+Kubelet stopped posting node status\./);

  // What the users' Service and the Deployment say then: w3's pod (10.244.3.x) is out of the
  // endpoints, and one of three unavailable is enough to make the Deployment not Available.
  const svc = await run(page, 'kubectl describe svc web');
  assert.match(svc, /Type:\s+NodePort/, svc);
  const endpoints = svc.match(/Endpoints:\s+(\S+)/)[1];
  assert.equal(endpoints.split(',').length, 2, svc);
  assert.ok(!endpoints.includes('10.244.3.'), svc);
  // The node controller's events say so too, as kubectl get events lists them.
  const events = await run(page, 'kubectl get events');
  assert.match(events, /NodeNotReady\s+node\/w3\s+Node w3 status is now: NodeNotReady/, events);
  assert.match(events, /Warning\s+NodeNotReady\s+pod\/web-[\w-]+\s+Node is not ready/, events);
  const deploy = await run(page, 'kubectl describe deploy web');
  assert.match(deploy, /Replicas:\s+3 desired \| 3 updated \| 3 total \| 2 available \| 1 unavailable/, deploy);
  assert.match(deploy, /Available\s+False\s+MinimumReplicasUnavailable/, deploy);
  const labelled = rows(await run(page, 'kubectl get pods -A -l app=web'));
  assert.equal(labelled.filter((r) => r[1]?.startsWith('web-')).length, 3);
  assert.ok(!labelled.some((r) => r[1]?.startsWith('coredns-')));

  // Earlier, before the lease expired, the API still believed w3 Ready (what kubectl shows then).
  await scrubTo(page, 70, '1:10.0');
  const early = rows(await run(page, 'kubectl get nodes'));
  assert.equal(early.find((r) => r[0] === 'w3')?.[1], 'Ready');

  // etcd from a control-plane host: the member table.
  await hosts.selectOption({ label: 'm1' });
  await expectText(page.locator('.console-screen .input-line .prompt'), /root@m1:~#/);
  const members = await run(page, 'etcdctl member list -w table');
  assert.match(members, /\|\s+ID\s+\|\s+STATUS\s+\|\s+NAME\s+\|/);
  assert.match(members, /\|\s+started\s+\|\s+m1\s+\|/);

  // History and completion, as in a shell.
  const input = page.getByRole('textbox', { name: 'Console command' });
  const value = (expected) => until(() => input.inputValue(), expected, 'the console\'s input');
  await input.press('ArrowUp');
  await value('etcdctl member list -w table');
  await input.press('ArrowUp');
  await value('kubectl get nodes');
  await input.fill('kubectl get dep');
  await input.press('Tab');
  await value('kubectl get deployment');
  // The Deployment's ReplicaSet and its pods' generated names complete too: Tab fills the part
  // they share (the workload's name, then the ReplicaSet's NAME-HASH), as far as it is unambiguous.
  await input.fill('kubectl describe pod we');
  await input.press('Tab');
  await value('kubectl describe pod web');
  await input.press('Tab');
  const completed = await value(/^kubectl describe pod web-[456789bcdf]{9,10}$/);
  const replicaSets = rows(await run(page, 'kubectl get rs'));
  // At 1:10, before w3's lease expired, its pod still counts as ready.
  assert.deepEqual(replicaSets[1].slice(0, 4), [completed.split(' ').pop(), '3', '3', '3']);

  // A hostile line is answered as kubectl answers it, and stays text.
  const hostile = await run(page, 'kubectl get <img src=x onerror=alert(1)>');
  assert.match(hostile, /error: the server doesn't have a resource type "<img/);
  assert.equal(await page.locator('.console-screen img').count(), 0);
  assert.match(await run(page, 'ls /'), /ls: command not found/);
  // A screenful and more: the newest output and the prompt stay in view.
  for (let i = 0; i < 4; i++) await run(page, 'kubectl get pods -A -o wide');
  await until(() => page.locator('.console-screen').evaluate((el) => {
    const box = el.getBoundingClientRect();
    const prompt = el.querySelector('.input-line').getBoundingClientRect();
    return prompt.bottom <= box.bottom + 1 && prompt.top >= box.top - 1;
  }), true, 'the prompt scrolled into view');
  await screenshot(page, 'console-worker-notready');
  // Another scenario is another session: an empty screen, no history.
  await pick(page, '1-only-master-dies');
  await until(() => page.locator('.console-screen .entry').count(), 0, 'the screen emptied');
  await input.fill('');
  await input.press('ArrowUp');
  assert.equal(await input.inputValue(), '');
  assert.deepEqual(problems, []);
});

test('console: cordon is recorded at the moment shown, and the share link carries it', async () => {
  const { page, problems } = await consoleAt('7-worker-dies', 110, '1:50.0');
  const uncordoned = await linkScenario(page);
  assert.match(await run(page, 'kubectl cordon w1'), /node\/w1 cordoned/);
  // The page says what it recorded; the run forks there.
  await page.locator('.notice', { hasText: /Recorded at 1:50\.0/ }).waitFor({ timeout: 30000 });
  await scrubTo(page, 120, '2:00.0');
  const after = rows(await run(page, 'kubectl get nodes'));
  assert.equal(after.find((r) => r[0] === 'w1')?.[1], 'Ready,SchedulingDisabled');
  // A cordoned node again: kubectl says so and changes nothing more.
  assert.match(await run(page, 'kubectl cordon w1'), /node\/w1 already cordoned/);

  await linkChangedFrom(page, uncordoned);
  await page.getByRole('button', { name: 'Share this run' }).click();
  const link = await page.getByRole('textbox', { name: 'Share link' }).inputValue();
  const fresh = await open(link.slice(link.indexOf('#')));
  await settled(fresh.page);
  await openConsole(fresh.page);
  const shared = rows(await run(fresh.page, 'kubectl get nodes'));
  assert.equal(shared.find((r) => r[0] === 'w1')?.[1], 'Ready,SchedulingDisabled');
  await screenshot(page, 'console-cordon');
  assert.deepEqual(fresh.problems, []);
  assert.deepEqual(problems, []);
});

test('console: a NoExecute taint empties the worker, and its card says why', async () => {
  const { page, problems } = await consoleAt('7-worker-dies', 30, '0:30.0');
  assert.match(await run(page, 'kubectl taint nodes w1 dedicated=db:NoExecute'), /node\/w1 tainted/);
  await page.locator('.notice', { hasText: /Recorded at 0:30\.0/ }).waitFor({ timeout: 30000 });
  await scrubTo(page, 40, '0:40.0');
  // The taint controller evicted every pod there (the DaemonSet's too); web's went elsewhere.
  const pods = rows(await run(page, 'kubectl get pods -o wide'));
  const onW1 = pods.filter((r) => r[6] === 'w1' && r[2] === 'Running');
  assert.deepEqual(onW1, [], pods.map((r) => r.join(' ')).join('\n'));
  // The worker's card names the taint (and the sentence a screen reader hears).
  await page.locator('[aria-label*="tainted dedicated"]').first().waitFor({ timeout: 30000 });
  assert.match(await run(page, 'kubectl taint nodes w1 dedicated-'), /node\/w1 untainted/);
  await screenshot(page, 'console-taint');
  assert.deepEqual(problems, []);
});

test('console: with the only master down, kubectl cannot reach the API, yet curl reaches the pods', async () => {
  const { page, problems } = await consoleAt('1-only-master-dies', 75, '1:15.0');
  const out = await run(page, 'kubectl get pods');
  assert.match(out, /Unable to connect to the server: dial tcp [\d.]+:6443: i\/o timeout|The connection to the server [\d.]+:6443 was refused/);
  // A dial that hangs takes its simulated time, and the page says how long.
  assert.match(out, /took \d+\.\d s of simulated time · exit status 1/);
  // Yet the users' requests still reach the pods: through a worker's NodePort, by kube-proxy's last rules.
  assert.match(await run(page, 'curl http://worker-1:30080'), /Hostname: web-[\w-]+/);
  await screenshot(page, 'console-master-down');
  assert.deepEqual(problems, []);
});

test('console: a port-forward started before the master dies ends with it; the NodePort keeps serving', async () => {
  const { page, problems } = await consoleAt('1-only-master-dies', 50, '0:50.0');
  const out = await run(
    page,
    'kubectl port-forward svc/web 8080:80 & curl localhost:8080; sleep 30; curl localhost:8080; curl http://worker-1:30080',
  );
  // In the order a terminal shows it: the forward, its first connection, kubectl's exit at the
  // master's crash (1:00), the refused local port, then the NodePort's answer.
  assert.match(
    out,
    /Forwarding from 127\.0\.0\.1:8080 -> 80[\s\S]*Handling connection for 8080\s+Hostname: web-[\w-]+\s+error: lost connection to pod\s+curl: \(7\) Failed to connect to localhost port 8080[^\n]*\s+Hostname: web-[\w-]+/,
  );
  assert.match(out, /took 30\.\d s of simulated time · exit status 0/);
  // Left in the background, a forward serves the host's next lines, as in a shell.
  assert.match(await run(page, 'kubectl port-forward svc/web 8090:80 &'), /Forwarding from 127\.0\.0\.1:8090 -> 80/);
  assert.match(await run(page, 'curl localhost:8090'), /Handling connection for 8090\s+Hostname: web-[\w-]+/);
  await screenshot(page, 'console-port-forward');
  assert.deepEqual(problems, []);
});

test('console: crictl on a cut-off node lists the pod the API replaced; nslookup and dig ask CoreDNS', async () => {
  // Rack B is cut off at 2:00; at 9:00 its web pod has been evicted and replaced on rack A.
  const { page, problems } = await consoleAt('4-rack-split', 540, '9:00.0');
  const hosts = page.getByRole('combobox', { name: 'Console host' });
  await hosts.selectOption({ label: 'w2' });
  const ps = await run(page, 'crictl ps');
  assert.match(ps, /CONTAINER\s+IMAGE\s+CREATED\s+STATE\s+NAME\s+ATTEMPT\s+POD ID\s+POD/);
  const pod = ps.match(/Running\s+web\s+0\s+[0-9a-f]{13}\s+(web-[\w-]+)/)?.[1];
  assert.ok(pod, ps);
  // The API (from rack A) has it Terminating: only the runtime on w2 still runs it.
  await hosts.selectOption({ label: 'w1' });
  const pods = await run(page, 'kubectl get pods');
  assert.match(pods, new RegExp(`${pod}\\s+0/1\\s+Terminating`), pods);
  // A pod's resolver goes through the search list; dig asks for the name as written.
  assert.match(await run(page, 'nslookup web'), /Name:\s+web\.default\.svc\.cluster\.local\s+Address: 10\.96\.\d+\.\d+/);
  assert.match(await run(page, 'dig web'), /status: NXDOMAIN/);
  const short = await run(page, 'dig +short web.default.svc.cluster.local');
  assert.match(short, /10\.96\.\d+\.\d+/);
  assert.doesNotMatch(short, /HEADER/);
  await screenshot(page, 'console-crictl');
  assert.deepEqual(problems, []);
});
