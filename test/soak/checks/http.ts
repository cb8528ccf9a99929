import fs from 'node:fs/promises';
import path from 'node:path';
import type { SoakClient } from '../client';
import type { Finding } from './finding';

// Outages are answered 503 with Retry-After, never 500: the 500s the soak's own client got, those
// the agents logged among their failed calls, and the unknown errors the APIs logged (each
// hidden as a 500, whoever asked). The gateway's 502 for a request cut mid-way is not one.

export interface HttpFindings {
  client500: number;
  agent500: number;
  apiLogged500: number;
  missingRetryAfter: number;
  found: Finding[];
}

const FIVE_HUNDRED = /(^|\()500 /;

export async function checkHttp(client: SoakClient, logsDir: string): Promise<HttpFindings> {
  const found: Finding[] = client.errors.map((what) => ({ what: `soak client: ${what}` }));
  let agent500 = 0;
  let apiLogged500 = 0;
  for (const file of await fs.readdir(logsDir)) {
    const isAgent = file.startsWith('soak-');
    const isApi = file.startsWith('api-');
    if (!isAgent && !isApi) continue;
    const text = await fs.readFile(path.join(logsDir, file), 'utf8');
    for (const line of text.split('\n')) {
      if (!line.startsWith('{')) continue;
      let entry: { msg?: string; why?: string; err?: unknown; path?: string };
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      if (isAgent && (FIVE_HUNDRED.test(entry.why ?? '') || FIVE_HUNDRED.test(String(entry.err ?? '')))) {
        agent500++;
        found.push({ what: `${file}: ${entry.msg} ${entry.why ?? String(entry.err)}` });
      }
      if (isApi && entry.msg === 'unhandled error') {
        apiLogged500++;
        found.push({ what: `${file}: 500 on ${entry.path}: ${JSON.stringify(entry.err).slice(0, 400)}` });
      }
    }
  }
  return { client500: client.seen(500), agent500, apiLogged500, missingRetryAfter: client.missingRetryAfter, found };
}
