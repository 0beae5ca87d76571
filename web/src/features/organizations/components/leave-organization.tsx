import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { failureMessage } from '../../../lib/api-client';
import { Alert, Button, Card, Modal } from '../../../ui';
import type { Organization } from '../api/get-organizations';
import { useLeaveOrganization } from '../api/leave-organization';

/** Anyone leaves an organization (its last owner is refused, with the server's message); their organization devices go. */
export function LeaveOrganization({ org }: { org: Organization }) {
  const leave = useLeaveOrganization();
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);

  return (
    <Card as="section" aria-labelledby="org-leave-title">
      <h2 id="org-leave-title" className="qw-card__title">
        Leave {org.name}
      </h2>
      <p className="qw-muted">
        You lose access to the organization, and your organization devices are removed at once.
      </p>
      {error && <Alert tone="error">{error}</Alert>}
      <div>
        <Button variant="danger" onClick={() => setAsking(true)}>
          Leave
        </Button>
      </div>
      <Modal
        open={asking}
        title={`Leave ${org.name}?`}
        confirmLabel="Leave"
        confirmVariant="danger"
        busy={leave.isPending}
        busyText="Leaving…"
        onCancel={() => setAsking(false)}
        onConfirm={() =>
          leave.mutate(org.id, {
            onSuccess: () => {
              setAsking(false);
              // /app decides where the person belongs now (spec §6).
              void navigate('/app', { replace: true });
            },
            onError: (failure) => {
              setAsking(false);
              setError(failureMessage(failure, 'We couldn’t take you out of the organization. Please try again.'));
            },
          })
        }
      >
        <p>
          Your organization devices are removed and their configurations stop working. To come back, you need a new
          invitation.
        </p>
      </Modal>
    </Card>
  );
}
