import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Field, Select } from '../../../ui';
import { useOrganizations, type Organization } from '../api/get-organizations';
import './organizations.css';

const storageKey = 'qw.business.org';

type OrgSelection = {
  organizations: Organization[];
  /** null while loading, and when the person belongs to none. */
  selected: Organization | null;
  select: (orgId: string) => void;
  loading: boolean;
  failed: boolean;
};

const OrgSelectionContext = createContext<OrgSelection | null>(null);

function remembered(): string | null {
  try {
    return localStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

function remember(orgId: string) {
  try {
    localStorage.setItem(storageKey, orgId);
  } catch {
    // Private modes may refuse storage; the choice then lasts until the page reloads.
  }
}

/** The organization chosen in the business area, shared by every screen and remembered across visits. */
export function OrgSelectionProvider({ children }: { children: ReactNode }) {
  const organizations = useOrganizations();
  const [chosen, setChosen] = useState<string | null>(remembered);
  const list = useMemo(() => organizations.data ?? [], [organizations.data]);
  const selected = list.find((org) => org.id === chosen) ?? list[0] ?? null;

  useEffect(() => {
    if (selected && selected.id !== chosen) setChosen(selected.id);
  }, [selected, chosen]);

  const value = useMemo<OrgSelection>(
    () => ({
      organizations: list,
      selected,
      select: (orgId) => {
        setChosen(orgId);
        remember(orgId);
      },
      loading: organizations.isPending,
      failed: organizations.isError,
    }),
    [list, selected, organizations.isPending, organizations.isError],
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
  if (failed) return <p className="org-note org-note--error">We couldn’t load your organizations. Please reload the page.</p>;
  if (organizations.length === 0) return <p className="qw-muted qw-small org-note">You don’t belong to an organization yet.</p>;
  return (
    <Field id="org-selector" label="Organization" className="org-selector">
      <Select value={selected?.id ?? ''} onChange={(event) => select(event.target.value)} options={organizations.map((org) => ({ value: org.id, label: org.name }))} />
    </Field>
  );
}
