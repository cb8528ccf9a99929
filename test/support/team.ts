import { login } from './auth';
import { v0ok } from './v0';

/** An owner with a fresh workspace, an admin and a member in it. */
export async function team() {
  const owner = await login();
  const ws = await v0ok('POST', '/workspaces', { token: owner.token, body: { name: 'team' } });
  const admin = await login();
  const member = await login();
  await v0ok('POST', `/workspaces/${ws.id}/members`, {
    token: owner.token,
    body: { email: admin.user.email, role: 'admin' },
  });
  await v0ok('POST', `/workspaces/${ws.id}/members`, {
    token: owner.token,
    body: { email: member.user.email, role: 'member' },
  });
  const outsider = await login();
  return { ws, owner, admin, member, outsider };
}
