import { runSoak } from './run';

// `npm run soak -- --minutes N [--fault-interval-ms MS] [--keep-data]`: the fault soak; its last
// line is the summary, and it exits 1 when any invariant broke or a job ended as its kind never
// should.

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main() {
  const minutes = Number(argValue('--minutes') ?? 2);
  if (!(minutes > 0)) throw new Error('--minutes is a number above 0');
  const faultInterval = argValue('--fault-interval-ms');
  const report = await runSoak({
    minutes,
    ...(faultInterval && { faultIntervalMs: Number(faultInterval) }),
    keepData: process.argv.includes('--keep-data'),
  });
  for (const line of report.lines) process.stdout.write(`${line}\n`);
  process.exit(Object.values(report.counts).every((n) => n === 0) && report.unexpected.length === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(2);
});
