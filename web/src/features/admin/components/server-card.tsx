import { connectedWindowSeconds, keyRotationGraceHours, regionLabel } from '@qw/contracts';
import { useId, useState, type ReactNode } from 'react';
import { formatDateTime } from '../../../lib/format';
import { Badge, Button, CopyButton } from '../../../ui';
import type { AdminServer } from '../api/get-servers';
import { formatCount, formatCpu, formatLoad, formatUsedPercent, recentMetrics, sshCommand } from '../format';
import { capacityText, formatAgo, formatUptime, resolverText, serverBadges } from '../utils/server-rules';
import { ServerHistory } from './server-history';

/** Spec §8: a card without metrics in the last 300 s. */
export const noRecentMetricsText = 'No recent metrics.';

export type ServerCardActions = {
  /** Which of the card's actions is waiting for the server, if any. */
  busy: 'drain' | 'enrolment' | null;
  onDrain: () => void;
  onUndrain: () => void;
  onNewEnrolment: () => void;
  onRetire: () => void;
};

/** Spec §2 Servers: one card per server host, with its fleet facts (issue #23). */
export function ServerCard({ server, now, actions }: { server: AdminServer; now: number; actions: ServerCardActions }) {
  const metrics = recentMetrics(server.metrics, now);
  const headingId = `server-${server.id}`;
  const retired = server.status === 'retired';
  const pending = server.status === 'pending';
  return (
    <li
      className={['qw-card', 'admin-server', retired && 'admin-server--retired'].filter(Boolean).join(' ')}
      aria-labelledby={headingId}
    >
      <div className="admin-server__head">
        <div className="admin-server__titles">
          <h2 id={headingId} className="admin-server__name">
            {server.name}
          </h2>
          <p className="qw-small qw-muted">
            {server.city ? `${server.city}, ${regionLabel(server.region)}` : regionLabel(server.region)}
          </p>
        </div>
        <ul className="admin-server__badges" aria-label="Status">
          {serverBadges(server).map((badge) => (
            <li key={badge.label}>
              <Badge tone={badge.tone}>{badge.label}</Badge>
            </li>
          ))}
        </ul>
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
      <dl className="admin-server__facts">
        <Fact term="Endpoint" value={<span className="qw-mono">{server.endpoint}</span>} />
        {!retired && <Fact term="Capacity" value={capacityText(server)} />}
        <Fact
          term="Last report"
          value={
            server.last_seen_at ? (
              <time dateTime={server.last_seen_at} title={formatDateTime(server.last_seen_at)}>
                {formatAgo(server.last_seen_at, now)}
              </time>
            ) : (
              'never'
            )
          }
        />
        {!retired && <Fact term="Agent" value={server.agent_version ?? '—'} />}
        {!retired && <Fact term="Uptime" value={formatUptime(server.agent_started_at, now)} />}
        {!retired && !pending && <Fact term="Resolver" value={resolverText(server.resolver)} />}
      </dl>
      {pending && (
        <p className="admin-server__no-metrics">
          Waiting for its host: run the install command there as root. A lost or expired token is replaced with New
          enrolment token.
        </p>
      )}
      {retired || pending ? null : metrics ? (
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
      {!retired && !pending && (
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
          {server.peers_moved > 0 && (
            <Metric
              term="Moved away"
              value={formatCount(server.peers_moved)}
              hint="kept until seen on their new server"
            />
          )}
          {server.devices_held > 0 && (
            <Metric term="Held" value={formatCount(server.devices_held)} hint="waiting for room in the region" />
          )}
          {server.peers_test > 0 && (
            <Metric term="Test accounts" value={formatCount(server.peers_test)} hint="their peers, not counted above" />
          )}
        </dl>
      )}
      {!pending && <HistoryToggle server={server} />}
      <SshCommand command={sshCommand(server)} />
      {!retired && <CardActions server={server} actions={actions} />}
    </li>
  );
}

function CardActions({ server, actions }: { server: AdminServer; actions: ServerCardActions }) {
  return (
    <div className="admin-server__actions">
      {server.status === 'pending' && (
        <Button
          variant="secondary"
          size="small"
          busy={actions.busy === 'enrolment'}
          busyText="Issuing…"
          onClick={actions.onNewEnrolment}
        >
          New enrolment token
        </Button>
      )}
      {server.status === 'active' &&
        (server.draining ? (
          <Button
            variant="secondary"
            size="small"
            busy={actions.busy === 'drain'}
            busyText="Opening…"
            onClick={actions.onUndrain}
          >
            Open again
          </Button>
        ) : (
          <Button
            variant="secondary"
            size="small"
            busy={actions.busy === 'drain'}
            busyText="Draining…"
            onClick={actions.onDrain}
          >
            Drain
          </Button>
        ))}
      <Button variant="danger" size="small" onClick={actions.onRetire}>
        Retire
      </Button>
    </div>
  );
}

function Fact({ term, value }: { term: string; value: ReactNode }) {
  return (
    <div className="admin-fact">
      <dt className="qw-small qw-muted">{term}</dt>
      <dd>{value}</dd>
    </div>
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

/** The last 24 hours, drawn only when asked for: a page of many servers stays one request. */
function HistoryToggle({ server }: { server: AdminServer }) {
  const [open, setOpen] = useState(false);
  const regionId = useId();
  return (
    <div className="admin-server-history__toggle">
      <Button
        variant="secondary"
        size="small"
        aria-expanded={open}
        aria-controls={regionId}
        onClick={() => setOpen((before) => !before)}
      >
        {open ? 'Hide last 24 hours' : 'Last 24 hours'}
      </Button>
      <div id={regionId}>{open && <ServerHistory serverId={server.id} serverName={server.name} />}</div>
    </div>
  );
}
