// The graphile-worker peer of the job-system benchmark (driven by `bench/src/bin/bench.rs`,
// run by `scripts/bench`; nothing else uses it).
//
//   node bench/graphile.mjs migrate   installs graphile-worker's schema into DATABASE_URL
//   node bench/graphile.mjs run       runs one worker process with the no-op task `noop`
//
// `run` reads commands on stdin, one per line, and answers on stdout with lines that start
// with "BENCH " (every other stdout line is graphile-worker's own log):
//   report   prints {"pid","count","firstStart","lastComplete","latencies"} for the jobs run
//            since the previous report, then forgets them. Times are wall-clock milliseconds
//            since the Unix epoch (fractional); a job whose payload carries `t` (its enqueue
//            time, microseconds since the epoch, taken by the bench on the same machine)
//            adds `start - t` to `latencies`.
//   (end of input)  stops the runner gracefully and exits.
//
// Environment: DATABASE_URL, CONCURRENCY (jobs run at once in this process, default 32),
// SETTINGS:
//   default  graphile-worker's default configuration, except maxPoolSize, which follows its own
//            advice to be at least the concurrency;
//   best     the high-throughput configuration of its performance documentation (the settings
//            behind its published figures): a local queue of 500 jobs fetched and locked per
//            round trip (`localQueue.size`, LOCAL_QUEUE), completions and failures batched with
//            no added delay (`completeJobBatchDelay` / `failJobBatchDelay` 0), and a pool of
//            concurrency + 1 connections.

import { EventEmitter } from "node:events";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { run, runMigrations } from "graphile-worker";

const connectionString = process.env.DATABASE_URL;
if (!connectionString) {
  console.error("graphile.mjs: DATABASE_URL is required");
  process.exit(2);
}
const concurrency = Number(process.env.CONCURRENCY || 32);
const settings = process.env.SETTINGS || "default";
if (settings !== "default" && settings !== "best") {
  console.error(`graphile.mjs: SETTINGS must be default or best, not ${settings}`);
  process.exit(2);
}
const best = settings === "best";

// Wall-clock milliseconds with sub-millisecond resolution (Date.now() has whole ms).
const nowMs = () => performance.timeOrigin + performance.now();

let stats;
const reset = () => {
  stats = { count: 0, firstStart: null, lastComplete: null, latencies: [] };
};
reset();

const taskList = {
  noop: async (payload) => {
    const start = nowMs();
    stats.count += 1;
    if (stats.firstStart === null || start < stats.firstStart) stats.firstStart = start;
    if (payload && typeof payload.t === "number") {
      stats.latencies.push(start - payload.t / 1000);
    }
  },
};

const mode = process.argv[2];
if (mode === "migrate") {
  await runMigrations({ connectionString });
  process.exit(0);
} else if (mode !== "run") {
  console.error("usage: node graphile.mjs migrate|run");
  process.exit(2);
}

// `job:complete` fires once the task has returned and its completion is queued (in 0.18 the
// delete runs after, batched or not): `lastComplete` is when the last one fired. The bench times
// the end of the run from the server instead (a trigger on the delete; see bench.rs).
const events = new EventEmitter();
events.on("job:complete", ({ error }) => {
  if (!error) stats.lastComplete = nowMs();
});

const runner = await run({
  connectionString,
  concurrency,
  maxPoolSize: best ? concurrency + 1 : concurrency,
  noHandleSignals: true,
  taskList,
  events,
  preset: best
    ? {
        worker: {
          localQueue: { size: Number(process.env.LOCAL_QUEUE || 500) },
          completeJobBatchDelay: 0,
          failJobBatchDelay: 0,
        },
      }
    : undefined,
});
process.stdout.write(`BENCH ${JSON.stringify({ ready: true, pid: process.pid })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "report") {
    process.stdout.write(`BENCH ${JSON.stringify({ pid: process.pid, ...stats })}\n`);
    reset();
  }
});
lines.on("close", async () => {
  await runner.stop();
  process.exit(0);
});
