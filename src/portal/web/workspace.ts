import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Workspace } from './types';

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

// The service's own role rules (least first), so the page and the API rank roles alike.
export { ROLES, atLeast } from '../../auth/roles';
