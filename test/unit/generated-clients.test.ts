import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CLIENT_SCHEMA, generatedClientFiles } from '../../scripts/docs/clients';

// The typed clients are generated from the checked-in OpenAPI document (itself checked against
// the served one by generated-docs.test.ts): a route's change that did not reach them fails here.

const ROOT = path.resolve(__dirname, '../..');

describe('the typed clients', () => {
  it('are what the generators make of clients/openapi.json (run npm run docs)', async function () {
    this.timeout(30_000);
    const files = await generatedClientFiles();
    assert.deepEqual(
      files.map((f) => f.path),
      [CLIENT_SCHEMA],
    );
    for (const file of files)
      assert.ok(
        fs.readFileSync(path.join(ROOT, file.path), 'utf8') === file.content,
        `${file.path} is out of date: run npm run docs`,
      );
  });

  it('types the routes and records the service serves', () => {
    const schema = fs.readFileSync(path.join(ROOT, CLIENT_SCHEMA), 'utf8');
    for (const route of ['"/v0/jobs"', '"/v0/jobs/{id}"', '"/v0/jobs/{id}/logs"'])
      assert.ok(schema.includes(route), `${route} is typed`);
    assert.match(schema, /Job: \{/);
  });
});
