// The study page in headless Chromium: 10 simulated years of the study benchmark's cluster (the
// same scenario as `clustersim bench`'s, crates/cli/src/study.rs: 3 stacked masters, 10 spot
// workers, 3 workloads; host MTBF 30 days, MTTR 1 h; spot interruptions every 14 days, replaced
// after 5 min) as 10 trials of a year, in the page's Web Workers. Prints figures next to their
// targets; asserts nothing time-based.
//
//   cargo xtask dist && NODE_PATH=.tools/node_modules node tests/e2e/bench-study.cjs
//
// Figures: the wall time from "Run the study" to the results, the longest gap between two updates
// of the progress bar, and the longest main-thread task meanwhile. BENCH_STUDY=TRIALS,DAYS changes
// the study (default 10,365).
const { serve, launch, openPage } = require('./lib.cjs');
const { fragment } = require('./bench.cjs');

const hosts = [1, 2, 3].map((i) => ({ name: `m${i}`, roles: ['control-plane', 'etcd'] }))
  .concat([...Array(10)].map((_, i) => ({ name: `w${i + 1}`, roles: ['worker'], spot: true })))
  .concat([{ name: 'lb', roles: ['load-balancer'] }, { name: 'users', roles: ['client'] }]);
const scenario = {
  version: 1, name: 'bench: 3 stacked + 10 spot workers', duration: '1h', hosts,
  workloads: [{ kind: 'Deployment', name: 'web', replicas: 3, service: true },
    { kind: 'Deployment', name: 'api', replicas: 2, service: true }, { kind: 'StatefulSet', name: 'db', replicas: 1 }],
  faults: [{ hosts: 'all', mtbf: '720h', mttr: '1h' }, { hosts: 'spot', spot_interruptions_every: '336h', replace_after: '5m' }],
};

async function main() {
  const [trials, days] = (process.env.BENCH_STUDY || '10,365').split(',').map(Number);
  const server = await serve();
  const browser = await launch();
  try {
    const { page, problems } = await openPage(browser, `${server.url}study/${fragment(scenario)}&trials=${trials}&days=${days}`);
    await page.getByRole('heading', { name: 'Availability study' }).waitFor({ timeout: 15000 });
    await page.evaluate(() => {
      window.longest = 0;
      window.updates = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) window.longest = Math.max(window.longest, e.duration);
      }).observe({ type: 'longtask' });
      new MutationObserver(() => {
        const bar = document.querySelector('.study-progress progress');
        if (bar) window.updates.push(performance.now());
      }).observe(document.body, { subtree: true, attributes: true, childList: true });
    });
    const started = Date.now();
    await page.getByRole('button', { name: 'Run the study' }).click();
    await page.getByRole('region', { name: 'Results' }).waitFor({ timeout: 900000 });
    const seconds = (Date.now() - started) / 1000;
    const { longest, gap, workers } = await page.evaluate(() => {
      let gap = 0;
      for (let i = 1; i < window.updates.length; i++) gap = Math.max(gap, window.updates[i] - window.updates[i - 1]);
      return { longest: window.longest, gap, workers: Math.min(Math.max(navigator.hardwareConcurrency, 1), 8) };
    });
    const years = ((trials * days) / 365).toFixed(1);
    console.log(`study page: ${years} simulated years (${trials} trials of ${days} days) on ${Math.min(workers, trials)} workers`);
    console.log(`  wall time                              ${seconds.toFixed(1)} s   (target: none; the runner's 10 years ≤ 6 s)`);
    console.log(`  longest gap between progress updates   ${gap.toFixed(0)} ms   (target ≤ 1000 ms)`);
    console.log(`  longest main-thread task               ${longest.toFixed(0)} ms   (target ≤ 50 ms)`);
    console.log(`BENCH_STUDY_PAGE_S=${seconds.toFixed(1)} BENCH_STUDY_PROGRESS_GAP_MS=${gap.toFixed(0)} BENCH_STUDY_LONGEST_TASK_MS=${longest.toFixed(0)}`);
    if (problems.length) console.log('page problems:', problems);
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
