import './admin.css';
import { connectedWindowSeconds, keyRotationGraceHours, regionLabel } from '@qw/contracts';
import { useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatDateTime } from '../../../lib/format';
import { Alert, Badge, Button, CopyButton, Modal, Skeleton } from '../../../ui';
import { useDrainServer } from '../api/drain-server';
import { type AdminServer, useServers } from '../api/get-servers';
import { formatCount, formatCpu, formatLoad, formatUsedPercent, recentMetrics, sshCommand } from '../format';
import { LoadFailure } from './list-controls';

/** Spec §8: a card without metrics in the last 300 s. */
export const noRecentMetricsText = 'No recent metrics.';

/** Spec §2 Servers: one card per server host. */
export function AdminServersPanel() {
  const servers = useServers();
  const drain = useDrainServer();
  const [confirming, setConfirming] = useState<AdminServer | null>(null);
  const [drainError, setDrainError] = useState<string | null>(null);

  async function setDraining(server: AdminServer, draining: boolean) {
    setDrainError(null);
    try {
      await drain.mutateAsync({ id: server.id, draining });
    } catch (error) {
      setDrainError(failureMessage(error, `${server.name} did not change. Try again in a moment.`));
    }
  }

  if (servers.isPending)
    return (
      <div className="admin-servers">
        <Skeleton height={260} />
        <Skeleton height={260} />
      </div>
    );
  if (servers.isError && !servers.data)
    return (
      <LoadFailure
        title="The servers did not load."
        error={servers.error}
        onRetry={() => void servers.refetch()}
        retrying={servers.isFetching}
      />
    );
  const list = servers.data?.servers ?? [];

  return (
    <>
      {drainError && (
        <Alert tone="error" title="Action failed">
          {drainError}
        </Alert>
      )}
      {list.length === 0 ? (
        <p className="admin-server__no-metrics">No server has registered yet.</p>
      ) : (
        <p className="qw-small qw-muted admin-servers__total">{peersTotalText(list)}</p>
      )}
      {list.length > 0 && (
        <ul className="admin-servers">
          {list.map((server) => (
            <ServerCard
              key={server.id}
              server={server}
              busy={drain.isPending && drain.variables?.id === server.id}
              onDrain={() => setConfirming(server)}
              onUndrain={() => void setDraining(server, false)}
            />
          ))}
        </ul>
      )}
      <Modal
        open={confirming !== null}
        title={`Drain ${confirming?.name ?? 'this server'}?`}
        confirmLabel="Drain"
        busy={drain.isPending}
        busyText="Draining…"
        onCancel={() => setConfirming(null)}
        onConfirm={async () => {
          if (confirming) await setDraining(confirming, true);
          setConfirming(null);
        }}
      >
        <p>New devices are placed on other servers. The devices already here stay and keep working.</p>
      </Modal>
    </>
  );
}

/**
 * The fleet's peers in one sentence: what the nodes carry is the placed devices (the Overview's
 * "placed on servers") plus the previous keys still in a rotation's grace period.
 */
export function peersTotalText(servers: AdminServer[]): string {
  const placed = servers.reduce((sum, server) => sum + server.peers_placed, 0);
  const retiring = servers.reduce((sum, server) => sum + server.peers_retiring, 0);
  const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;
  return `${plural(placed + retiring, 'peer', 'peers')} on ${plural(servers.length, 'server', 'servers')}: ${plural(placed, 'device placed', 'devices placed')} and ${plural(retiring, 'key', 'keys')} in their ${keyRotationGraceHours} h rotation grace.`;
}

function ServerCard({
  server,
  busy,
  onDrain,
  onUndrain,
}: {
  server: AdminServer;
  busy: boolean;
  onDrain: () => void;
  onUndrain: () => void;
}) {
  const metrics = recentMetrics(server.metrics);
  const headingId = `server-${server.id}`;
  return (
    <li className="qw-card admin-server" aria-labelledby={headingId}>
      <div className="admin-server__head">
        <div className="admin-server__titles">
          <h2 id={headingId} className="admin-server__name">
            {server.name}
          </h2>
          <p className="qw-small qw-muted">
            {server.city ? `${server.city}, ${regionLabel(server.region)}` : regionLabel(server.region)}
            {server.last_seen_at ? ` · last seen ${formatDateTime(server.last_seen_at)}` : ' · never seen'}
          </p>
        </div>
        {server.draining ? <Badge tone="warning">Draining</Badge> : <Badge tone="success">Open</Badge>}
      </div>
      {server.tags.length > 0 && (
        <ul className="admin-server__tags" aria-label="Tags">
          {server.tags.map((tag) => (
            <li key={tag}>
              <Badge tone="neutral">{tag}</Badge>
            </li>
          ))}
        </ul>
      )}
      {metrics ? (
        <dl className="admin-server__metrics">
          <Metric term="CPU" value={formatCpu(metrics.cpu)} />
          <Metric
            term="Load"
            value={`${formatLoad(metrics.load1)} / ${formatLoad(metrics.load5)} / ${formatLoad(metrics.load15)}`}
            hint="1, 5 and 15 min"
          />
          <Metric term="Memory" value={formatUsedPercent(metrics.mem_used, metrics.mem_total)} />
          <Metric term="Disk" value={formatUsedPercent(metrics.disk_used, metrics.disk_total)} />
        </dl>
      ) : (
        <p className="admin-server__no-metrics">{noRecentMetricsText}</p>
      )}
      <dl className="admin-server__peers">
        <Metric term="Peers placed" value={formatCount(server.peers_placed)} hint="active devices with a key" />
        <Metric
          term="Retiring keys"
          value={formatCount(server.peers_retiring)}
          hint={`in their ${keyRotationGraceHours} h rotation grace`}
        />
        <Metric
          term="Connected"
          value={formatCount(server.peers_connected)}
          hint={`handshake in the last ${connectedWindowSeconds / 60} min`}
        />
      </dl>
      <SshCommand command={sshCommand(server)} />
      <div className="admin-server__actions">
        {server.draining ? (
          <Button variant="secondary" size="small" busy={busy} busyText="Opening…" onClick={onUndrain}>
            Undrain
          </Button>
        ) : (
          <Button variant="secondary" size="small" busy={busy} busyText="Draining…" onClick={onDrain}>
            Drain
          </Button>
        )}
      </div>
    </li>
  );
}

function Metric({ term, value, hint }: { term: string; value: string; hint?: string }) {
  return (
    <div className="admin-metric">
      <dt className="qw-small qw-muted">
        {term}
        {hint && <span className="admin-metric__hint"> ({hint})</span>}
      </dt>
      <dd className="admin-metric__value">{value}</dd>
    </div>
  );
}

/**
 * The SSH command, selectable as text and copied with one button, which says "Copied" where it was
 * pressed (issue #26) rather than in a toast far from it.
 */
function SshCommand({ command }: { command: string }) {
  return (
    <div className="admin-ssh">
      <code className="qw-mono admin-ssh__command">{command}</code>
      <CopyButton text={command} label={`Copy ${command}`} />
    </div>
  );
}
