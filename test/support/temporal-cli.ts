import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureTool } from '../../src/stack/tools';
import { testEnv } from './env';

/** `temporal workflow …` with the CLI the project builds, against the suite's server (the UI makes the same calls). */
export async function temporalCli(...args: string[]): Promise<string> {
  const bin = await ensureTool('temporal', testEnv().config.toolsDir);
  const { address, namespace } = testEnv().config.temporal;
  const { stdout } = await promisify(execFile)(bin, [
    'workflow',
    ...args,
    '--address',
    address!,
    '--namespace',
    namespace,
  ]);
  return stdout;
}
