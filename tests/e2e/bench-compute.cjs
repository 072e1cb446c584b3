// How long builds of the page take to compute the 1,000-worker reference hour (navigation start
// to the charts complete), loaded in turns so that each sees the machine's drift alike. Each
// argument is a built dist/ folder (e.g. copies of dist/ built at different opt-levels).
//
//   NODE_PATH=.tools/node_modules node tests/e2e/bench-compute.cjs /tmp/dist-z /tmp/dist-s [ROUNDS]
const { serve, launch } = require('./lib.cjs');
const { clusterReference, fragment } = require('./bench.cjs');

async function main() {
  const args = process.argv.slice(2);
  const rounds = /^\d+$/.test(args[args.length - 1] || '') ? Number(args.pop()) : 6;
  const frag = fragment(clusterReference(Number(process.env.BENCH_WORKERS || 1000)));
  const servers = await Promise.all(args.map((dir) => serve(dir)));
  const browser = await launch();
  const times = args.map(() => []);
  try {
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < args.length; k++) {
        const i = (k + round) % args.length;
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(servers[i].url + frag);
        await page.locator('figure.charts[aria-busy="false"]').waitFor({ timeout: 600000 });
        times[i].push(await page.evaluate(() => performance.now()));
        await page.close();
      }
    }
  } finally {
    await browser.close();
    servers.forEach((s) => s.close());
  }
  args.forEach((dir, i) => {
    const t = times[i];
    const mean = t.reduce((a, b) => a + b, 0) / t.length;
    console.log(`${dir}: computed in ${(mean / 1000).toFixed(1)} s on average (${t.map((x) => (x / 1000).toFixed(1)).join(', ')})`);
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
