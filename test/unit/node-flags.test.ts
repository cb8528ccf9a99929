import assert from 'node:assert/strict';
import fs from 'node:fs';
import { parse } from 'yaml';
import { NODE_FLAGS } from '../../src/runtime/node-flags';

// The API and the worker run with the flags src/runtime/node-flags.ts gives them, however they are
// started: `npm run api` / `npm run worker`, and compose's services (the image's commands).
describe('the services’ Node flags', () => {
  it('are the same in the npm scripts and in compose as in src/runtime/node-flags.ts', () => {
    const scripts = JSON.parse(fs.readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
    assert.equal(scripts.api, `tsx ${NODE_FLAGS.api.join(' ')} src/main/api.ts`);
    assert.equal(scripts.worker, `tsx ${NODE_FLAGS.worker.join(' ')} src/main/worker.ts`);
    const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8')) as {
      services: Record<string, { command?: string[] }>;
    };
    const started = Object.entries(compose.services).flatMap(([name, s]) => {
      const main = s.command?.find((part) => /^dist\/src\/main\/(api|worker)\.js$/.test(part));
      return main ? [{ name, command: s.command!, role: main.includes('api') ? 'api' : 'worker' } as const] : [];
    });
    assert.ok(started.some((s) => s.role === 'api') && started.some((s) => s.role === 'worker'));
    for (const s of started)
      assert.deepEqual(s.command.slice(0, -1), ['node', ...NODE_FLAGS[s.role]], `compose's ${s.name}`);
  });
});
