import { Link } from 'react-router-dom';
import { AdminGuard } from '../guards/admin-guard';
import { ConsoleLayout } from '../layouts/console-layout';
import { HideTestAccountsToggle } from '../../features/admin/components/hide-test-accounts-toggle';
import { viewSitePath } from '../../lib/redirects';

/** Spec §2 "Admin area": Overview, Accounts, Devices, Telemetry, Servers, Analytics, View Site (/), Sign out (to /). */
const adminTabs = [
  { to: '/admin/overview', label: 'Overview' },
  { to: '/admin/accounts', label: 'Accounts' },
  { to: '/admin/devices', label: 'Devices' },
  { to: '/admin/telemetry', label: 'Telemetry' },
  { to: '/admin/servers', label: 'Servers' },
  { to: '/admin/analytics', label: 'Analytics' },
] as const;

export default function AdminAreaRoute() {
  return (
    <AdminGuard>
      <ConsoleLayout
        area="Admin"
        tabs={adminTabs}
        tabExtras={
          <>
            <li>
              <Link to={viewSitePath} className="console__tab-extra">
                View Site
              </Link>
            </li>
            <li>
              <HideTestAccountsToggle />
            </li>
          </>
        }
      />
    </AdminGuard>
  );
}
