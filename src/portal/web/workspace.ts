import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role, Workspace } from './types';

// The workspace a signed-in page acts in, with the person's role there: pages show a control only
// to a role the API would let use it (the API refuses the others anyway).

export interface Acting {
  workspace: Workspace;
  userId: string;
}

export const ActingContext = createContext<Acting | undefined>(undefined);

export function useActing(): Acting {
  const acting = useContext(ActingContext);
  if (!acting) throw new Error('useActing outside a signed-in page');
  return acting;
}

/** The roles, least first. */
export const ROLES: Role[] = ['member', 'admin', 'owner'];
const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** True when `role` is at least `least`. */
export const atLeast = (role: Role, least: Role) => RANK[role] >= RANK[least];
