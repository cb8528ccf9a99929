import assert from 'node:assert/strict';
import { testEnv } from './env';
import { post } from './http';

let counter = 0;
/** A fresh address, so each test logs in as a user of its own. */
export const newEmail = () => `user${Date.now()}${counter++}@Example.test`;

export interface Session {
  token: string;
  expiresAt: string;
  user: { id: string; email: string; workspaceId: string };
}

/** The whole login: request a code, read it from the test mailbox, exchange it for a JWT. */
export async function login(email = newEmail()): Promise<Session> {
  const asked = await post('/auth/request-otp', { email });
  assert.equal(asked.status, 200, JSON.stringify(asked.body));
  const verified = await post('/auth/verify-otp', { email, code: testEnv().mailbox.codeFor(email) });
  assert.equal(verified.status, 200, JSON.stringify(verified.body));
  return verified.body.payload as Session;
}
