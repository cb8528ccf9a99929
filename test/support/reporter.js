// Mocha's spec output, closed by the ten slowest files (hooks included) and the plain summary line
// CI reads: "N passed, N failed, N skipped". In a lane of `npm test` (COMPUTE_TEST_LANE) the line
// names the lane, and scripts/test-suite.ts prints the plain one for the whole run. With
// COMPUTE_TEST_RECAP set, each failure is also appended to that file as a JSON line, so the suite can
// name them all again at its end: CI shows only the tail of a long run.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_HOOK_BEGIN, EVENT_HOOK_END, EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_FAIL } =
  Mocha.Runner.constants;

/** A failure's message and the first frames of its stack: enough to find it, short enough to recap. */
function shortError(err) {
  const lines = String((err && (err.stack || err.message)) || err).split('\n');
  const frames = lines.filter((l) => /^\s+at /.test(l)).slice(0, 3);
  return [...lines.filter((l) => !/^\s+at /.test(l)).slice(0, 20), ...frames].join('\n');
}

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const perFile = new Map();
    const hooksPerFile = new Map();
    const hookStarted = new Map();
    const fileOf = (runnable) =>
      path.relative(process.cwd(), runnable.file || (runnable.parent && runnable.parent.file) || 'root hooks');
    const failed = [];
    runner.on(EVENT_TEST_FAIL, (test, err) =>
      failed.push({ file: fileOf(test), title: test.fullTitle(), error: shortError(err) }),
    );
    runner.on(EVENT_HOOK_BEGIN, (hook) => hookStarted.set(hook, Date.now()));
    runner.on(EVENT_HOOK_END, (hook) => {
      const at = hookStarted.get(hook);
      hookStarted.delete(hook);
      if (at !== undefined) hooksPerFile.set(fileOf(hook), (hooksPerFile.get(fileOf(hook)) || 0) + Date.now() - at);
    });
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const at = started.get(suite);
      if (at === undefined) return;
      const file = path.relative(process.cwd(), suite.file);
      perFile.set(file, (perFile.get(file) || 0) + Date.now() - at);
    });
    runner.once(EVENT_RUN_END, () => {
      const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
      const seconds = (ms) => (ms / 1000).toFixed(1).padStart(8);
      if (slowest.length > 1) {
        process.stdout.write('\nslowest files (seconds, of which in hooks):\n');
        for (const [file, ms] of slowest)
          process.stdout.write(`${seconds(ms)} ${seconds(hooksPerFile.get(file) || 0)}  ${file}\n`);
        const hooks = [...hooksPerFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
        process.stdout.write(
          `hooks: ${seconds([...hooksPerFile.values()].reduce((a, b) => a + b, 0)).trim()} s in all; the most: ${hooks.map(([f, ms]) => `${f} ${(ms / 1000).toFixed(1)}`).join(', ')}\n`,
        );
      }
      const { passes, failures, pending } = runner.stats;
      const lane = process.env.COMPUTE_TEST_LANE;
      const recap = process.env.COMPUTE_TEST_RECAP;
      if (recap && failed.length)
        fs.appendFileSync(recap, failed.map((f) => `${JSON.stringify({ lane: lane || '', ...f })}\n`).join(''));
      process.stdout.write(
        `\n${lane ? `lane ${lane}: ` : ''}${passes} passed, ${failures} failed, ${pending} skipped\n`,
      );
    });
  }
}

module.exports = SpecWithSummary;
