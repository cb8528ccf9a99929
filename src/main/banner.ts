// What `npm run dev` and `npm run stack:prod` print once everything runs: the same addresses,
// the same first steps.

export interface StackAddresses {
  url: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  temporalUiUrl?: string;
  databaseUrl: string;
  s3?: { endpoint: string; consoleUrl: string };
  /** Where a job's trace is read (Jaeger's query API), or the collector spans go to. */
  traces?: string;
  /** What the Stripe line says (stripe-mock's URL and secret, or the real API). */
  stripe?: string;
  /** Where the API writes the login codes it would mail. */
  loginCodes: string;
  agents: string[];
  workspaceId: string;
  key: string;
}

export function printAddresses(say: (line: string) => void, a: StackAddresses): void {
  say('');
  say(`  Portal         ${a.url}/   (sign in with any e-mail: the code is printed in ${a.loginCodes})`);
  say(`  API            ${a.url}/api   (OpenAPI: ${a.url}/api/openapi.json)`);
  say(`  Operations     ${a.url}/readyz   ${a.url}/metrics   (the worker's Temporal SDK series included)`);
  say(`  Temporal       ${a.temporalAddress}   namespace ${a.namespace}, task queue ${a.taskQueue}`);
  if (a.temporalUiUrl) say(`  Temporal UI    ${a.temporalUiUrl}   (filter: JobState="RUNNING")`);
  say(`  PostgreSQL     ${a.databaseUrl}`);
  if (a.s3) say(`  MinIO          ${a.s3.endpoint}   (console ${a.s3.consoleUrl})`);
  if (a.stripe) say(`  Stripe         ${a.stripe}`);
  if (a.traces) say(`  Traces         ${a.traces}`);
  for (const agent of a.agents) say(`  ${agent}`);
  say(`  Workspace      ${a.workspaceId}`);
  say(`  API key        ${a.key}`);
  say('');
  say(`  try:     echo '{"type":"COMMAND","command":"echo hello; sleep 1; echo done"}' > job.json`);
  say('           npx compute run job.json      (from this folder; elsewhere set COMPUTE_API_KEY)');
  say(
    '  billing: npx compute billing checkout payg, then npx compute billing simulate-event checkout.session.completed',
  );
  say('           (the managed pool is for billed plans: hobby, where the workspace starts, has none)');
  say(`  log in:  npx compute login   (the code is printed in ${a.loginCodes}; no mail server is needed)`);
  say('  Ctrl-C stops everything.');
}
