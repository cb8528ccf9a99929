import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';

/**
 * Streams a file to a signed upload URL (no header of ours, a known Content-Length) and returns
 * the answer's status and body (at most 64 KiB of it). Network failures reject.
 */
export function putFile(
  url: string,
  file: string,
  opts: { size: number; contentType: string; onProgress?: (sent: number) => void; headers?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = (target.protocol === 'https:' ? https : http).request(
      target,
      { method: 'PUT', headers: { ...opts.headers, 'Content-Length': opts.size, 'Content-Type': opts.contentType } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (body.length < 64 * 1024) body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const source = fs.createReadStream(file);
    let sent = 0;
    if (opts.onProgress) source.on('data', (c) => opts.onProgress!((sent += c.length)));
    source.on('error', (err) => req.destroy(err));
    source.pipe(req);
  });
}
