// The pg-boss peer of the job-system benchmark (driven by `bench/src/bin/bench.rs`, run by
// `scripts/bench`; nothing else uses it).
//
//   node bench/pgboss.mjs migrate        installs pg-boss's schema into DATABASE_URL and creates
//                                        the queue `noop`
//   node bench/pgboss.mjs enqueue N B    inserts N no-op jobs, B per `insert` call (one statement)
//   node bench/pgboss.mjs send M P       sends M jobs one at a time, one every P ms, each carrying
//                                        its enqueue time `t` (microseconds since the epoch)
//   node bench/pgboss.mjs run            runs one worker process with the no-op handler
//
// `run` speaks the protocol of bench/graphile.mjs: it prints `BENCH {"ready":true}` once working,
// answers `report` on stdin with `BENCH {"pid","count","firstStart","lastComplete","latencies"}`
// (times in wall-clock milliseconds since the epoch; `lastComplete` is always null here: the bench
// reads completion times from pg-boss's own `completed_on` column) and stops gracefully at the end
// of its input.
//
// Environment: DATABASE_URL, CONCURRENCY (default 32), SETTINGS:
//   default  pg-boss's defaults, with CONCURRENCY workers (`localConcurrency`) so that as many jobs
//            run at once as in the other scenarios: each worker fetches one job, runs it and then
//            waits out its polling interval (2 s) before fetching again;
//   best     the throughput settings its documentation offers: each worker fetches a batch
//            (`batchSize`, BATCH, default 250) and hands it to the handler in one call, completing
//            it with one statement; `burstWhenBatchFull` fetches again at once while batches come
//            back full; LISTEN/NOTIFY (`useListenNotify` and the queue's `notify`) wakes idle
//            workers when a job is sent instead of their poll; WORKERS workers (`localConcurrency`,
//            default 4) and a pool (`max`) of WORKERS + 4 connections.

import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { PgBoss } from "pg-boss";

const connectionString = process.env.DATABASE_URL;
if (!connectionString) {
  console.error("pgboss.mjs: DATABASE_URL is required");
  process.exit(2);
}
const settings = process.env.SETTINGS || "default";
if (settings !== "default" && settings !== "best") {
  console.error(`pgboss.mjs: SETTINGS must be default or best, not ${settings}`);
  process.exit(2);
}
const best = settings === "best";
const concurrency = Number(process.env.CONCURRENCY || 32);
const workers = Number(process.env.WORKERS || 4);
const batchSize = Number(process.env.BATCH || 250);
const QUEUE = "noop";

const nowMs = () => performance.timeOrigin + performance.now();

const [mode, arg1, arg2] = process.argv.slice(2);

// Maintenance (supervise, cron) stays at its defaults for `run`; the helper modes need none.
const helper = mode !== "run";
const boss = new PgBoss({
  connectionString,
  ...(helper ? { supervise: false, schedule: false, max: 2 } : {}),
  ...(best && !helper ? { useListenNotify: true, max: workers + 4 } : {}),
});
boss.on("error", (e) => console.error(`pg-boss error: ${e.message}`));
await boss.start();

if (mode === "migrate") {
  await boss.createQueue(QUEUE, best ? { notify: true } : {});
  await boss.stop({ graceful: false });
  process.exit(0);
} else if (mode === "enqueue") {
  const n = Number(arg1);
  const b = Number(arg2 || 500);
  for (let done = 0; done < n; ) {
    const k = Math.min(b, n - done);
    await boss.insert(
      QUEUE,
      Array.from({ length: k }, (_, j) => ({ data: { i: done + j } })),
    );
    done += k;
  }
  await boss.stop({ graceful: false });
  process.exit(0);
} else if (mode === "send") {
  const m = Number(arg1);
  const pace = Number(arg2 || 10);
  const t0 = nowMs();
  for (let i = 0; i < m; i++) {
    // Paced against the start, so a slow send does not shift every later one.
    const wait = t0 + i * pace - nowMs();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await boss.send(QUEUE, { t: Math.round(nowMs() * 1000) });
  }
  await boss.stop({ graceful: false });
  process.exit(0);
} else if (mode !== "run") {
  console.error("usage: node pgboss.mjs migrate | enqueue N B | send M P | run");
  process.exit(2);
}

let stats;
const reset = () => {
  stats = { count: 0, firstStart: null, lastComplete: null, latencies: [] };
};
reset();

const handler = async (jobs) => {
  const start = nowMs();
  stats.count += jobs.length;
  if (stats.firstStart === null || start < stats.firstStart) stats.firstStart = start;
  for (const job of jobs) {
    if (job.data && typeof job.data.t === "number") {
      stats.latencies.push(start - job.data.t / 1000);
    }
  }
};

await boss.work(
  QUEUE,
  best
    ? { localConcurrency: workers, batchSize, burstWhenBatchFull: true }
    : { localConcurrency: concurrency },
  handler,
);
process.stdout.write(`BENCH ${JSON.stringify({ ready: true, pid: process.pid })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "report") {
    process.stdout.write(`BENCH ${JSON.stringify({ pid: process.pid, ...stats })}\n`);
    reset();
  }
});
lines.on("close", async () => {
  await boss.stop({ graceful: true, timeout: 10000 });
  process.exit(0);
});
