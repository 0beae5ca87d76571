import { useState, type ReactNode } from 'react';
import { Outlet, useNavigate } from 'react-router-dom';
import { useAuth } from '../../lib/auth/auth-provider';
import { Button, Tabs, type TabItem } from '../../ui';
import { BrandLink } from './brand';
import { useFocusMainOnNavigate } from './use-focus-main';
import { SkipLink } from './skip-link';
import './console-layout.css';

export type ConsoleLayoutProps = {
  /** 'Personal', 'Business', 'Admin'. */
  area: string;
  tabs: readonly TabItem[];
  /** Extra entries at the end of the tab row (the admin area's View Site link). */
  tabExtras?: ReactNode;
  /** Shown under the tabs on every screen (the business organization selector). */
  toolbar?: ReactNode;
  /** Shown above the screen (the unverified-email banner). */
  banner?: ReactNode;
  /** Sign out goes to /; the business area replaces the history entry (spec §2). */
  signOutReplace?: boolean;
};

/** The frame of the personal, business and admin areas: brand, area, who is signed in, Sign out, tabs. */
export function ConsoleLayout({ area, tabs, tabExtras, toolbar, banner, signOutReplace = false }: ConsoleLayoutProps) {
  const { user, signOut } = useAuth();
  const navigate = useNavigate();
  const mainRef = useFocusMainOnNavigate();
  const [signingOut, setSigningOut] = useState(false);

  async function onSignOut() {
    setSigningOut(true);
    await signOut();
    // The protected wrapper stays empty meanwhile, rather than sending the person to /login.
    await navigate('/', { replace: signOutReplace });
  }

  return (
    <div className="console">
      <SkipLink mainRef={mainRef} />
      <header className="console__header">
        <div className="console__bar">
          <div className="console__brand">
            <BrandLink />
            <span className="console__area">{area}</span>
          </div>
          <div className="console__user">
            {user && (
              <span className="console__email qw-small qw-muted" title={user.email}>
                {user.email}
              </span>
            )}
            <Button variant="secondary" size="small" onClick={onSignOut} busy={signingOut} busyText="Signing out…">
              Sign out
            </Button>
          </div>
        </div>
        <div className="console__tabs">
          <Tabs label={`${area} area`} items={tabs}>
            {tabExtras}
          </Tabs>
        </div>
      </header>
      {toolbar && <div className="console__toolbar">{toolbar}</div>}
      <main id="main" ref={mainRef} tabIndex={-1} className="console__main">
        {banner}
        <Outlet />
      </main>
    </div>
  );
}
