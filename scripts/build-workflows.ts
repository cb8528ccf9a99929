import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

// `npm run build:workflows [file]`: the workflows bundled ahead of time (default
// dist/workflow-bundle.js), so a worker started with TEMPORAL_WORKFLOW_BUNDLE pointing at it loads
// the file instead of running webpack at every start. Build it from the same commit as the worker.

const ROOT = path.resolve(__dirname, '..');
const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist', 'workflow-bundle.js'));

void (async () => {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve(path.join(ROOT, 'workflows')) });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  process.stdout.write(
    `workflow bundle: ${path.relative(process.cwd(), out)} (${(code.length / 1024).toFixed(0)} KiB)\n`,
  );
})();
