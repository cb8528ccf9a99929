import { Command } from 'commander';
import { CliError } from './api-client';
import { registerAdminCommands } from './commands/admin';
import { registerAdminBillingCommands } from './commands/admin-billing';
import { registerAgentCommand } from './commands/agent';
import { registerAgentsCommands } from './commands/agents';
import { registerArtifactCommands } from './commands/artifacts';
import { registerBillingCommands } from './commands/billing';
import { registerJobCommands } from './commands/jobs';
import { registerKeysCommands } from './commands/keys';
import { registerLoginCommands } from './commands/login';
import { registerMembersCommands } from './commands/members';
import { registerTokensCommands } from './commands/tokens';
import { registerWebhooksCommands } from './commands/webhooks';
import { registerWorkspacesCommands } from './commands/workspaces';

const program = new Command('compute').description('Compute job service command-line tool');
registerLoginCommands(program);
registerKeysCommands(program);
registerTokensCommands(program);
registerWorkspacesCommands(program);
registerMembersCommands(program);
registerJobCommands(program);
registerArtifactCommands(program);
registerAgentCommand(program);
registerAgentsCommands(program);
registerWebhooksCommands(program);
registerBillingCommands(program);
registerAdminCommands(program);
registerAdminBillingCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  // Expected failures are one line; anything else is a bug worth its message, still without a stack.
  const message = err instanceof CliError || err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
});
