import { planDisplayName } from '@qw/contracts';
import { Link } from 'react-router-dom';
import { failureMessage } from '../../../lib/api-client';
import { Alert, StatTile } from '../../../ui';
import { useOrgDevices } from '../../devices/api/get-org-devices';
import { useAuditLog } from '../api/get-audit-log';
import { useInvitations } from '../api/get-invitations';
import { useOrganization } from '../api/get-organization';
import type { Organization } from '../api/get-organizations';
import { useOrgUsers } from '../api/get-org-users';
import { auditSentence, readerDateTime } from '../utils/audit-sentences';
import { membersAtDeviceLimit, seatsText, teamDevicesText } from '../utils/organization-rules';
import './organizations.css';

/** How many of the newest activity entries the overview shows. */
const latestShown = 5;

/**
 * What a team lead checks on the business Overview (issue #26), for owners and admins: the plan
 * and its seats (members and open invitations against the cap), devices against the plan's limit,
 * invitations still open, the people at their 5-device limit, and the latest activity.
 */
export function TeamSummary({ org }: { org: Organization }) {
  const detail = useOrganization(org.id);
  // Only the quota is shown here (the whole organization's, on any page): the smallest page.
  const devices = useOrgDevices(org.id, { per_page: 1 });
  const invitations = useInvitations(org.id);
  const users = useOrgUsers(org.id);
  const activity = useAuditLog(org.id, {});
  const pending = invitations.data?.length;
  const atLimit = devices.data && users.data ? membersAtDeviceLimit(devices.data.quota, users.data) : undefined;
  const latest = activity.data?.entries.slice(0, latestShown);
  const failed = [detail, devices, invitations, users, activity].find((query) => query.isError)?.error;

  return (
    <section className="qw-stack" aria-labelledby="team-summary-title">
      <h2 id="team-summary-title">Your team</h2>
      {failed !== undefined && (
        <Alert tone="error">
          {failureMessage(failed, 'We couldn’t load everything here. Please reload the page.')}
        </Alert>
      )}
      <div className="org-cards">
        <StatTile
          label="Plan and seats"
          value={detail.data ? seatsText(detail.data, pending ?? 0) : '—'}
          hint={planDisplayName(org.plan)}
        />
        <StatTile
          label="Devices of the plan"
          value={devices.data ? teamDevicesText(devices.data.quota) : '—'}
          hint="Every organization device counts, suspended ones too"
        />
        <StatTile
          label="Open invitations"
          value={pending ?? '—'}
          hint={<Link to="/app/business/users">See and revoke them</Link>}
        />
        <StatTile
          label="At their device limit"
          value={atLimit ? atLimit.length : '—'}
          hint={
            atLimit && atLimit.length > 0
              ? atLimit.join(', ')
              : atLimit
                ? `Nobody has ${devices.data?.quota.per_assignee ?? 5} devices yet`
                : undefined
          }
        />
      </div>
      <div className="qw-stack qw-stack--sm">
        <h3>Latest activity</h3>
        {latest && latest.length === 0 && <p className="qw-muted">Nothing has happened yet.</p>}
        {latest && latest.length > 0 && (
          <ul className="org-latest" aria-label="Latest activity">
            {latest.map((entry) => (
              <li key={entry.id}>
                <span>{auditSentence(entry)}</span>{' '}
                <time className="qw-muted qw-small" dateTime={entry.at}>
                  {readerDateTime(entry.at)}
                </time>
              </li>
            ))}
          </ul>
        )}
        <p>
          <Link to="/app/business/activity">All activity</Link>
        </p>
      </div>
    </section>
  );
}
