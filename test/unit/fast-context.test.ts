import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { FastContext } from '../../src/http/fast-context';

/** A request as Node's parser leaves it, with the headers an agent's poll sends. */
function request() {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = '/api/compute/nodes/poll';
  req.rawHeaders = ['Host', 'api', 'X-API-Key', 'ck_secret', 'Content-Type', 'application/json'];
  req.headers = { host: 'api', 'x-api-key': 'ck_secret', 'content-type': 'application/json' };
  return { req, res: new ServerResponse(req) };
}

describe('the fast path’s context', () => {
  it('lets go of a request’s headers once its chain ends with the answer left for later', () => {
    const { req, res } = request();
    const ctx = new FastContext(req, res, false, '/api/compute/nodes/poll');
    assert.equal(ctx.get('X-API-Key'), 'ck_secret');
    ctx.respond = false;
    ctx.finish();
    assert.deepEqual(req.headers, {});
    assert.deepEqual(req.rawHeaders, []);
    assert.equal(ctx.get('X-API-Key'), '', 'nothing of the key is held while the poll waits');
    assert.equal(res.headersSent, false, 'the answer is still to be written');
  });

  it('keeps the headers of a request it answers', () => {
    const { req, res } = request();
    const ctx = new FastContext(req, res, false, '/api/compute/nodes/poll');
    ctx.body = { status: 'OK' };
    ctx.finish();
    assert.equal(req.headers['x-api-key'], 'ck_secret');
    assert.equal(req.rawHeaders.length, 6);
  });
});
