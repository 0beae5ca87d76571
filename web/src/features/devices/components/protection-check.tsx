import { tunnelCheckUrl } from '@qw/contracts';
import { Link } from 'react-router-dom';
import { Alert, Button } from '../../../ui';
import { useDevices } from '../api/get-devices';
import { useOrgDevices } from '../api/get-org-devices';
import { useTunnelCheck } from '../api/get-tunnel-check';
import { protection } from '../utils/protection';

/**
 * "Am I protected?" on the Overview (issue #25): asks the node through the tunnel, if there is one.
 * On the business Overview (`orgId`) the browser may be on one of the organization's devices as
 * well as one of the person's own.
 */
export function ProtectionCheck({ devicesPath, orgId = null }: { devicesPath: string; orgId?: string | null }) {
  const check = useTunnelCheck();
  const personal = useDevices();
  const organization = useOrgDevices(orgId);
  const devices = [...(personal.data ?? []), ...(organization.data?.devices ?? [])];
  const secure = typeof window !== 'undefined' && window.location.protocol === 'https:';
  const result = protection(check.isPending ? undefined : (check.data ?? null), devices, secure);
  return (
    <section className="devices-protection" aria-labelledby="devices-protection-title">
      <h2 id="devices-protection-title">Am I protected?</h2>
      {result.state === 'checking' && <p aria-busy="true">Checking whether this browser is on a Quietwire tunnel…</p>}
      {result.state === 'protected' && (
        <Alert tone="success" title={result.text}>
          <p className="qw-small">DNS: your server's own resolver ({result.resolvers.join(', ')}).</p>
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
        <Alert tone="info" title="Check in a new tab">
          <p className="qw-small">{result.text}</p>
          <p>
            <a href={tunnelCheckUrl} target="_blank" rel="noreferrer">
              Open the check
            </a>
          </p>
        </Alert>
      )}
      {result.state !== 'checking' && result.state !== 'cannot_check' && (
        <Button variant="secondary" onClick={() => void check.refetch()} busy={check.isFetching}>
          Check again
        </Button>
      )}
    </section>
  );
}
