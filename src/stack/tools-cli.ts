import { loadToolsDir } from '../config';
import { ensureTool, TOOL_VERSIONS, type ToolName } from './tools';

// `npm run tools [temporal|minio|all]`: build (once) and print the pinned local tools.

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'all';
  const names = Object.keys(TOOL_VERSIONS) as ToolName[];
  const wanted = which === 'all' ? names : names.filter((n) => n === which);
  if (wanted.length === 0) throw new Error(`usage: tools-cli [${names.join('|')}|all]`);
  const toolsDir = loadToolsDir();
  for (const name of wanted) {
    const binary = await ensureTool(name, toolsDir, (msg) => console.error(`[${name}] ${msg}`));
    console.log(`${name} ${TOOL_VERSIONS[name]} ${binary}`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
