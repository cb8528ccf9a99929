import type { ApiClient } from './api';
import { type FleetResult, fleetThroughput, logFlood, submitBurst } from './fleet';
import { watchLoad } from './load';
import { type BenchStack, anotherWorkspaceKey } from './stack';
import { describe } from './stats';

// bench:dispatch's end-to-end phase: two reference agents of 8 slots run the jobs, then again
// while another workspace bursts submits, and again while four jobs flood their logs.

const AGENTS = 2;
const SLOTS = 8;

export interface EndToEnd {
  fleet: FleetResult;
  fleetLoadLines: string[];
  bursts: FleetResult[];
  floods: FleetResult[];
}

/**
 * The agents' loop, then the burst and flood rounds, alternated, `disturbedRounds` of each: one
 * disturbed round's ratio moves by ±0.1 from round to round on the same stack (its window is
 * about 20 s of a bursty loop), so each figure pools its rounds.
 */
export async function endToEnd(o: {
  stack: BenchStack;
  api: ApiClient;
  jobs: number;
  burst: number;
  disturbedRounds: number;
  inFlight: number;
  note: (line: string) => void;
}): Promise<EndToEnd> {
  const { stack, api, note } = o;
  const args = { stack, api, agents: AGENTS, slots: SLOTS, jobs: o.jobs, inFlight: o.inFlight };
  note(`end to end: ${AGENTS} reference agents x ${SLOTS} slots, ${o.jobs} jobs …`);
  const load = watchLoad(stack.service.db);
  const fleet = await fleetThroughput(args);
  const fleetLoadLines = load.stop(o.jobs);
  const burstKey = await anotherWorkspaceKey(stack.db, 'bench-burst');
  const bursts: FleetResult[] = [];
  const floods: FleetResult[] = [];
  for (let round = 1; round <= o.disturbedRounds; round++) {
    const of = `${round} of ${o.disturbedRounds}`;
    note(`end to end again (${of}), with a burst of ${o.burst} submits no agent takes …`);
    bursts.push(await fleetThroughput({ ...args, disturbance: submitBurst(api, burstKey, o.burst, 100) }));
    note(`end to end again (${of}), with four jobs flooding their logs …`);
    floods.push(await fleetThroughput({ ...args, disturbance: logFlood(api, stack.userKey, 4) }));
  }
  return { fleet, fleetLoadLines, bursts, floods };
}

/** Prints the phase against the service's own loop (`loopPerSecond`); its three ratios. */
export function reportEndToEnd(
  e: EndToEnd,
  loopPerSecond: number,
  inFlight: number,
  say: (line?: string) => void,
): { ratioFleet: number; ratioBurst: number; ratioFlood: number } {
  const rate = (v: number) => v.toFixed(1);
  const ratioFleet = e.fleet.perSecond / loopPerSecond;
  say(`== end to end: ${AGENTS} reference agents x ${SLOTS} slots, ${e.fleet.jobs} jobs, ${inFlight} in flight ==`);
  say(
    `agents: ${rate(e.fleet.perSecond)} jobs/s (middle 80%: ${rate(e.fleet.steadyPerSecond)} jobs/s) against the service loop's ${rate(loopPerSecond)}: ratio ${ratioFleet.toFixed(2)}`,
  );
  say(describe('  submit → SUCCEEDED in the read model', e.fleet.endToEnd));
  for (const line of e.fleetLoadLines) say(`  ${line}`);
  /** Each round's ratio, and the rounds pooled: all their completions during it per second against all outside it. */
  const pooled = (runs: FleetResult[]) => {
    const sum = { during: 0, seconds: 0, outside: 0, outsideSeconds: 0 };
    for (const run of runs) {
      const d = run.disturbed!;
      say(
        `  again with ${d.description} over ${d.seconds.toFixed(1)} s while they work: ${rate(d.completionsDuring)} completions/s during it, ${rate(d.completionsOutside)}/s outside it (ratio ${(d.completionsDuring / d.completionsOutside).toFixed(2)})`,
      );
      sum.during += d.during;
      sum.seconds += d.seconds;
      sum.outside += d.outside;
      sum.outsideSeconds += d.outsideSeconds;
    }
    const ratio = sum.during / sum.seconds / (sum.outside / sum.outsideSeconds);
    if (runs.length > 1) say(`  the ${runs.length} rounds pooled: ratio ${ratio.toFixed(2)}`);
    return ratio;
  };
  return { ratioFleet, ratioBurst: pooled(e.bursts), ratioFlood: pooled(e.floods) };
}
