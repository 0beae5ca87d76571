import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useAuth } from '../../../lib/auth/auth-provider';
import { Field, Select } from '../../../ui';
import { useOrganizations, type Organization } from '../api/get-organizations';
import { chooseOrganization, orgSelectionKey } from '../utils/organization-rules';
import './organizations.css';

type OrgSelection = {
  organizations: Organization[];
  /** null while loading, and when the person belongs to none. */
  selected: Organization | null;
  select: (orgId: string) => void;
  loading: boolean;
  failed: boolean;
};

const OrgSelectionContext = createContext<OrgSelection | null>(null);

function remembered(userId: string | null | undefined): string | null {
  const key = orgSelectionKey(userId);
  if (!key) return null;
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Remembers the business area's organization for this person (the invitation page sets the one just joined). */
export function rememberOrganization(userId: string | null | undefined, orgId: string) {
  const key = orgSelectionKey(userId);
  if (!key) return;
  try {
    localStorage.setItem(key, orgId);
  } catch {
    // Private modes may refuse storage; the choice then lasts until the page reloads.
  }
}

/**
 * The organization chosen in the business area, shared by every screen and remembered across
 * visits per person; the first organization when nothing (or one the person left) is remembered.
 */
export function OrgSelectionProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const userId = user?.id ?? null;
  const organizations = useOrganizations();
  const [chosen, setChosen] = useState<{ userId: string | null; orgId: string | null }>(() => ({
    userId,
    orgId: remembered(userId),
  }));
  // Another person signed in in this tab: their own remembered choice.
  const chosenId = chosen.userId === userId ? chosen.orgId : remembered(userId);
  const list = useMemo(() => organizations.data ?? [], [organizations.data]);
  const selected = chooseOrganization(list, chosenId);

  useEffect(() => {
    if (chosen.userId !== userId) setChosen({ userId, orgId: remembered(userId) });
  }, [chosen.userId, userId]);

  const value = useMemo<OrgSelection>(
    () => ({
      organizations: list,
      selected,
      select: (orgId) => {
        setChosen({ userId, orgId });
        rememberOrganization(userId, orgId);
      },
      loading: organizations.isPending,
      failed: organizations.isError,
    }),
    [list, selected, userId, organizations.isPending, organizations.isError],
  );
  return <OrgSelectionContext.Provider value={value}>{children}</OrgSelectionContext.Provider>;
}

export function useSelectedOrg(): OrgSelection {
  const value = useContext(OrgSelectionContext);
  if (!value) throw new Error('useSelectedOrg must be used inside <OrgSelectionProvider>');
  return value;
}

/** Spec §2: every business screen has an organization selector. */
export function OrgSelector() {
  const { organizations, selected, select, loading, failed } = useSelectedOrg();
  if (loading) return <p className="qw-muted qw-small org-note">Loading organizations…</p>;
  if (failed)
    return <p className="org-note org-note--error">We couldn’t load your organizations. Please reload the page.</p>;
  if (organizations.length === 0)
    return <p className="qw-muted qw-small org-note">You don’t belong to an organization yet.</p>;
  return (
    <Field id="org-selector" label="Organization" className="org-selector">
      <Select
        value={selected?.id ?? ''}
        onChange={(event) => select(event.target.value)}
        options={organizations.map((org) => ({ value: org.id, label: org.name }))}
      />
    </Field>
  );
}

/**
 * A business screen's body for the chosen organization; while the list loads, 'Loading…'; when it
 * failed, an error; with no organization, spec §8's 'No organization found.'.
 */
export function WithSelectedOrg({ children }: { children: (org: Organization) => ReactNode }) {
  const { selected, loading, failed } = useSelectedOrg();
  if (loading) return <p className="qw-muted">Loading…</p>;
  if (failed)
    return <p className="org-note org-note--error">We couldn’t load your organizations. Please reload the page.</p>;
  if (!selected) return <p data-testid="no-organization">No organization found.</p>;
  return <>{children(selected)}</>;
}
