import { formatDateTime } from '../../../lib/format';
import { CopyButton, Modal } from '../../../ui';
import type { ServerEnrolment } from '../api/add-server';
import { formatDuration } from '../utils/server-rules';

/**
 * A server's one-time enrolment token and install command (issue #23), shown once: the page holds
 * them only while this dialog is open and forgets them when it closes. A pending server's card can
 * ask for a new token, which stops the earlier ones.
 */
export function EnrolmentDialog({
  serverName,
  enrolment,
  onClose,
}: {
  serverName: string;
  enrolment: ServerEnrolment | null;
  onClose: () => void;
}) {
  return (
    <Modal
      open={enrolment !== null}
      title={`Enrol ${serverName}`}
      confirmLabel="Done"
      cancelLabel={null}
      onConfirm={onClose}
      onCancel={onClose}
    >
      {enrolment && (
        <div className="admin-enrolment">
          <p>
            <strong>This token is shown only now.</strong> Copy the command before you close this dialog; if you lose
            it, ask for a new token on the server’s card.
          </p>
          <p className="qw-small qw-muted">
            Run the command as root on the new host. The token works once, until {formatDateTime(enrolment.expires_at)}{' '}
            (in {formatDuration((Date.parse(enrolment.expires_at) - Date.now()) / 1000)}).
          </p>
          <Secret label="Install command" text={enrolment.install_command} />
          <Secret label="Enrolment token" text={enrolment.token} />
        </div>
      )}
    </Modal>
  );
}

function Secret({ label, text }: { label: string; text: string }) {
  return (
    <div className="admin-enrolment__secret">
      <p className="qw-small qw-muted admin-enrolment__label">{label}</p>
      <div className="admin-ssh">
        <code className="qw-mono admin-ssh__command">{text}</code>
        <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} />
      </div>
    </div>
  );
}
