import './admin.css';
import { keyRotationGraceHours, regionLabel } from '@qw/contracts';
import { useEffect, useRef, useState } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Alert, Button, Modal, Skeleton } from '../../../ui';
import type { ServerEnrolment } from '../api/add-server';
import { useDrainServer } from '../api/drain-server';
import { type AdminServer, useServers } from '../api/get-servers';
import { useHideTestAccounts } from '../hide-test-accounts';
import { useNewEnrolment } from '../api/new-enrolment';
import { useRetireServer } from '../api/retire-server';
import { formatCount } from '../format';
import { orderServers, unreachableAlertText } from '../utils/server-rules';
import { AddServerForm } from './add-server-form';
import { EnrolmentDialog } from './enrolment-dialog';
import { LoadFailure } from './list-controls';
import { ServerCard } from './server-card';

export { noRecentMetricsText } from './server-card';

/** "12 s ago" moves on between refreshes. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** A token on screen: the server it enrols and the enrolment, held only while the dialog is open. */
type ShownEnrolment = { serverName: string; enrolment: ServerEnrolment };

/** Spec §2 Servers: one card per server host; issue #23: add, enrol, drain and retire them. */
export function AdminServersPanel() {
  const servers = useServers();
  const hideTest = useHideTestAccounts();
  const drain = useDrainServer();
  const enrol = useNewEnrolment();
  const retire = useRetireServer();
  const now = useNow(5_000);
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<ShownEnrolment | null>(null);
  const [confirmingDrain, setConfirmingDrain] = useState<AdminServer | null>(null);
  const [retiring, setRetiring] = useState<AdminServer | null>(null);
  const [retireError, setRetireError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);

  async function setDraining(server: AdminServer, draining: boolean) {
    setActionError(null);
    try {
      await drain.mutateAsync({ id: server.id, draining });
    } catch (error) {
      setActionError(failureMessage(error, `${server.name} did not change. Try again in a moment.`));
    }
  }

  async function newToken(server: AdminServer) {
    setActionError(null);
    try {
      const enrolment = await enrol.mutateAsync(server.id);
      enrol.reset();
      setShown({ serverName: server.name, enrolment });
    } catch (error) {
      enrol.reset();
      setActionError(failureMessage(error, `No new token for ${server.name}. Try again in a moment.`));
    }
  }

  async function confirmRetire() {
    if (!retiring) return;
    setRetireError(null);
    try {
      await retire.mutateAsync(retiring.id);
      setRetiring(null);
    } catch (error) {
      setRetireError(failureMessage(error, `${retiring.name} was not retired. Try again in a moment.`));
    }
  }

  function closeEnrolment() {
    setShown(null);
    window.requestAnimationFrame(() => addButton.current?.focus());
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
  const { current, retired } = orderServers(list);
  const unreachable = unreachableAlertText(list);
  const card = (server: AdminServer) => (
    <ServerCard
      key={server.id}
      server={server}
      now={now}
      actions={{
        busy:
          drain.isPending && drain.variables?.id === server.id
            ? 'drain'
            : enrol.isPending && enrol.variables === server.id
              ? 'enrolment'
              : null,
        onDrain: () => setConfirmingDrain(server),
        onUndrain: () => void setDraining(server, false),
        onNewEnrolment: () => void newToken(server),
        onRetire: () => {
          setRetireError(null);
          setRetiring(server);
        },
      }}
    />
  );

  return (
    <>
      {unreachable && (
        <Alert tone="error" title="Unreachable servers" assertive>
          {unreachable}
        </Alert>
      )}
      {actionError && (
        <Alert tone="error" title="Action failed">
          {actionError}
        </Alert>
      )}
      <div className="admin-servers__toolbar">
        <p className="qw-small qw-muted admin-servers__total">
          {current.length === 0 ? 'No servers yet: add the first one.' : peersTotalText(current, hideTest)}
        </p>
        {!adding && (
          <Button ref={addButton} onClick={() => setAdding(true)}>
            Add server
          </Button>
        )}
      </div>
      {adding && (
        <AddServerForm
          onAdded={({ server, enrolment }) => {
            setAdding(false);
            setShown({ serverName: server.name, enrolment });
          }}
          onCancel={() => {
            setAdding(false);
            window.requestAnimationFrame(() => addButton.current?.focus());
          }}
        />
      )}
      {current.length > 0 && <ul className="admin-servers">{current.map(card)}</ul>}
      {retired.length > 0 && (
        <details className="admin-servers__retired">
          <summary>
            Retired servers ({formatCount(retired.length)}): no credentials, no peers. Kept for the record.
          </summary>
          <ul className="admin-servers">{retired.map(card)}</ul>
        </details>
      )}
      <EnrolmentDialog
        serverName={shown?.serverName ?? ''}
        enrolment={shown?.enrolment ?? null}
        onClose={closeEnrolment}
      />
      <Modal
        open={confirmingDrain !== null}
        title={`Drain ${confirmingDrain?.name ?? 'this server'}?`}
        confirmLabel="Drain"
        busy={drain.isPending}
        busyText="Draining…"
        onCancel={() => setConfirmingDrain(null)}
        onConfirm={async () => {
          if (confirmingDrain) await setDraining(confirmingDrain, true);
          setConfirmingDrain(null);
        }}
      >
        <p>
          It takes no new devices. Its devices move to other servers in{' '}
          {confirmingDrain ? regionLabel(confirmingDrain.region) : 'its region'}, each with a new configuration to
          download; any that find no room there wait, shown as held, until a server of the region has room.
        </p>
      </Modal>
      <Modal
        open={retiring !== null}
        title={`Retire ${retiring?.name ?? 'this server'}?`}
        confirmLabel="Retire"
        confirmVariant="danger"
        busy={retire.isPending}
        busyText="Retiring…"
        onCancel={() => setRetiring(null)}
        onConfirm={() => void confirmRetire()}
      >
        <p>
          Its credentials are revoked at once and its peers are removed; it cannot come back. A server with devices on
          it must be drained first.
        </p>
        {retireError && (
          <Alert tone="error" title="Not retired">
            {retireError}
          </Alert>
        )}
      </Modal>
    </>
  );
}

/**
 * The fleet's peers in one sentence: what the nodes carry is the placed devices (the Overview's
 * "placed on servers") plus the previous keys still in a rotation's grace period.
 */
export function peersTotalText(servers: AdminServer[], hideTest = false): string {
  const placed = servers.reduce((sum, server) => sum + server.peers_placed, 0);
  const retiring = servers.reduce((sum, server) => sum + server.peers_retiring, 0);
  const test = servers.reduce((sum, server) => sum + server.peers_test, 0);
  const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;
  const counted = `${plural(placed + retiring, 'peer', 'peers')} on ${plural(servers.length, 'server', 'servers')}: ${plural(placed, 'device placed', 'devices placed')} and ${plural(retiring, 'key', 'keys')} in their ${keyRotationGraceHours} h rotation grace`;
  // Issue #26: while test accounts are hidden, their peers are counted apart, so the sum still
  // says what the nodes carry.
  if (!hideTest) return `${counted}.`;
  return `${counted}; not counted: ${plural(test, 'peer', 'peers')} of test accounts.`;
}
