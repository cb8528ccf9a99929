import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureTool } from '../../src/stack/tools';
import { testEnv } from './env';

/** `temporal …` with the CLI the project builds, against the suite's server; its standard output. */
export async function temporalCommand(args: string[]): Promise<string> {
  const bin = await ensureTool('temporal', testEnv().config.toolsDir);
  const { address, namespace } = testEnv().config.temporal;
  const { stdout } = await promisify(execFile)(bin, [...args, '--address', address!, '--namespace', namespace]);
  return stdout;
}

/** `temporal workflow …` (the UI makes the same calls). */
export const temporalCli = (...args: string[]): Promise<string> => temporalCommand(['workflow', ...args]);
