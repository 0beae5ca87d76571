import { tunnelCheckUrl } from '@qw/contracts';
import { Link } from 'react-router-dom';
import { Alert, Button } from '../../../ui';
import { useDevices } from '../api/get-devices';
import { useOrgDevices } from '../api/get-org-devices';
import { useConnectionCheck } from '../api/get-connection-check';
import { useAuth } from '../../../lib/auth/auth-provider';
import { useTunnelCheck } from '../api/get-tunnel-check';
import { protection } from '../utils/protection';

/**
 * "Am I protected?" on the Overview (issue #25): asks the gateway whether this request came from
 * one of our servers (works on the HTTPS site; names the server) and, on an http:// page only,
 * the node through the tunnel too (names the device). On the business Overview (`orgId`) the
 * browser may be on one of the organization's devices as well as one of the person's own.
 */
export function ProtectionCheck({ devicesPath, orgId = null }: { devicesPath: string; orgId?: string | null }) {
  const secure = typeof window !== 'undefined' && window.location.protocol === 'https:';
  const check = useTunnelCheck(!secure);
  const gateway = useConnectionCheck();
  const personal = useDevices();
  // "One of your devices": the person's own organization devices (5 at most), one page.
  const selfId = useAuth().user?.id;
  const organization = useOrgDevices(orgId !== null && selfId ? orgId : null, selfId ? { assignee_id: selfId } : {});
  const devices = [...(personal.data ?? []), ...(organization.data?.devices ?? [])];
  const result = protection(
    secure ? null : check.isPending ? undefined : (check.data ?? null),
    gateway.isPending ? undefined : (gateway.data ?? null),
    devices,
    secure,
  );
  const checkAgain = () => {
    if (!secure) void check.refetch();
    void gateway.refetch();
  };
  return (
    <section className="devices-protection" aria-labelledby="devices-protection-title">
      <h2 id="devices-protection-title">Am I protected?</h2>
      {result.state === 'checking' && <p aria-busy="true">Checking whether this browser is on a Quietwire tunnel…</p>}
      {result.state === 'protected' && (
        <Alert tone="success" title={result.text}>
          <p className="qw-small">DNS: your server's own resolver ({result.resolvers.join(', ')}).</p>
          {result.deviceUnknown && (
            <p className="qw-small">
              This check sees the server, not which of your devices this is. To see the device's key,{' '}
              <a href={tunnelCheckUrl} target="_blank" rel="noreferrer">
                open the tunnel's own check in a new tab
              </a>
              .
            </p>
          )}
        </Alert>
      )}
      {result.state === 'not_protected' && (
        <Alert tone="warning" title={result.text}>
          <ol className="devices-protection__steps">
            <li>Turn the tunnel on in the WireGuard app on this device.</li>
            <li>
              No configuration on this device yet? Add it on <Link to={devicesPath}>Devices</Link> and follow its setup
              steps.
            </li>
            <li>Then check again.</li>
          </ol>
        </Alert>
      )}
      {result.state === 'cannot_check' && (
        <Alert tone="info" title="Could not check">
          <p className="qw-small">{result.text}</p>
          <p>
            <a href={tunnelCheckUrl} target="_blank" rel="noreferrer">
              Open the check
            </a>
          </p>
        </Alert>
      )}
      {result.state !== 'checking' && (
        <Button variant="secondary" onClick={checkAgain} busy={check.isFetching || gateway.isFetching}>
          Check again
        </Button>
      )}
    </section>
  );
}
