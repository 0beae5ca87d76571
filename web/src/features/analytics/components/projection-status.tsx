import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Modal, Skeleton, useToast, QueryFailure } from '../../../ui';
import { analyticsKey } from '../api/analytics-key';
import { useProjection } from '../api/get-projection';
import { useRebuildProjection } from '../api/rebuild-projection';
import { analyticsFailureText, formatCount, formatInstant } from '../format';

/**
 * Which projection the figures come from ("Figures as of …"), a rebuild under way ("Rebuilding
 * from history: N events to go"), and the operators' "Rebuild figures" button, asked once.
 */
export function ProjectionStatus() {
  const projection = useProjection();
  const rebuild = useRebuildProjection();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const status = projection.data;
  const building = status?.building ?? null;

  // When a rebuild has caught up the figures come from the new projection: read them all again.
  const buildingGeneration = useRef<number | null>(null);
  useEffect(() => {
    const generation = building?.generation ?? null;
    if (buildingGeneration.current !== null && generation === null)
      void queryClient.invalidateQueries({ queryKey: analyticsKey });
    buildingGeneration.current = generation;
  }, [building?.generation, queryClient]);

  function closeConfirmation() {
    setConfirming(false);
    rebuild.reset();
  }

  function startRebuild() {
    rebuild.mutate(undefined, {
      onSuccess: () => {
        setConfirming(false);
        toast('Rebuild started');
      },
    });
  }

  return (
    <div className="analytics-status">
      <div className="analytics-status__text qw-small">
        {projection.isPending ? (
          <Skeleton height={20} />
        ) : projection.isError && !status ? (
          <QueryFailure
            compact
            message={analyticsFailureText(projection.error)}
            onRetry={() => void projection.refetch()}
            retrying={projection.isFetching}
          />
        ) : status ? (
          <>
            {status.live ? (
              <p>
                Figures as of {formatInstant(projection.dataUpdatedAt)}
                <span className="qw-muted">
                  {' '}
                  · projection {status.live.generation} (definition {status.live.definition}), live since{' '}
                  {formatInstant(status.live.live_since)}
                  {status.live.pending_events > 0 &&
                    `, ${formatCount(status.live.pending_events)} events still to read`}
                </span>
              </p>
            ) : (
              <p>No figures yet: the first projection is still being built.</p>
            )}
            {building && (
              <p className="analytics-status__building">
                Rebuilding from history: {formatCount(building.pending_events)} events to go
              </p>
            )}
          </>
        ) : null}
      </div>
      <Button
        variant="secondary"
        size="small"
        onClick={() => setConfirming(true)}
        disabled={building !== null || !status}
      >
        Rebuild figures
      </Button>
      <Modal
        open={confirming}
        title="Rebuild figures?"
        confirmLabel="Rebuild figures"
        busy={rebuild.isPending}
        busyText="Starting…"
        onConfirm={startRebuild}
        onCancel={closeConfirmation}
      >
        <p>
          The figures are rebuilt from the full history of events, beside the current ones. This page keeps showing the
          current figures until the rebuild has caught up, then switches to the new ones. It can take a few minutes.
        </p>
        {rebuild.isError && (
          <Alert tone="error" title="The rebuild did not start.">
            {analyticsFailureText(rebuild.error)}
          </Alert>
        )}
      </Modal>
    </div>
  );
}
