import { useState, type FormEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { formatDate } from '../../../lib/format';
import { Alert, Badge, Button, Field, Input, Modal, Table, type TableColumn, useToast } from '../../../ui';
import { type AdminEmail, useAddAdminEmail, useAdminEmails, useRemoveAdminEmail } from '../api/admin-emails';
import { LoadFailure } from './list-controls';

/**
 * Spec §3 admin_emails: the addresses that make an account admin. Adding one grants admin once the
 * address is verified; an address set in configuration (ADMIN_EMAILS) cannot be removed here, and
 * the server refuses removing your own or the last one.
 */
export function AdminEmailsPanel({ currentEmail }: { currentEmail?: string }) {
  const emails = useAdminEmails();
  const add = useAddAdminEmail();
  const remove = useRemoveAdminEmail();
  const toast = useToast();
  const [draft, setDraft] = useState('');
  const [addError, setAddError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<AdminEmail | null>(null);
  const [removeError, setRemoveError] = useState<string | null>(null);

  async function onAdd(event: FormEvent) {
    event.preventDefault();
    const email = draft.trim();
    if (!email) {
      setAddError('Enter an email address.');
      return;
    }
    setAddError(null);
    try {
      await add.mutateAsync(email);
      setDraft('');
      toast(`${email} added`);
    } catch (error) {
      setAddError(failureMessage(error, 'The address was not added. Try again in a moment.'));
    }
  }

  async function onRemove() {
    if (!removing) return;
    setRemoveError(null);
    try {
      await remove.mutateAsync(removing.email);
      toast(`${removing.email} removed`);
    } catch (error) {
      setRemoveError(failureMessage(error, 'The address was not removed. Try again in a moment.'));
    }
    setRemoving(null);
  }

  const self = currentEmail?.toLowerCase();
  const columns: TableColumn<AdminEmail>[] = [
    { key: 'email', header: 'Email', rowHeader: true, cell: (row) => <span className="admin-break">{row.email}</span> },
    {
      key: 'role',
      header: 'Admin',
      cell: (row) => (
        <span className="admin-cell-stack">
          {row.is_admin || row.role === 'admin' ? <Badge tone="success">Yes</Badge> : <Badge tone="neutral">No</Badge>}
          {row.from_config && <span className="qw-small qw-muted">Set in configuration</span>}
        </span>
      ),
    },
    { key: 'added', header: 'Added', cell: (row) => formatDate(row.added_at) },
    {
      key: 'actions',
      header: 'Actions',
      cell: (row) =>
        row.from_config ? (
          <span className="qw-small qw-muted">Change ADMIN_EMAILS to remove</span>
        ) : row.email.toLowerCase() === self ? (
          <span className="qw-small qw-muted">You</span>
        ) : (
          <Button variant="danger" size="small" aria-label={`Remove ${row.email}`} onClick={() => setRemoving(row)}>
            Remove
          </Button>
        ),
    },
  ];

  return (
    <section className="admin-section" aria-labelledby="admin-emails-title">
      <h2 id="admin-emails-title" className="admin-section__title">
        Admin emails
      </h2>
      <form className="admin-search" onSubmit={(event) => void onAdd(event)} aria-label="Add an admin email">
        <Field label="Add an admin email" error={addError} className="admin-search__field">
          <Input
            type="email"
            value={draft}
            maxLength={254}
            autoComplete="off"
            onChange={(event) => setDraft(event.target.value)}
          />
        </Field>
        <Button type="submit" busy={add.isPending} busyText="Adding…">
          Add
        </Button>
      </form>
      {removeError && (
        <Alert tone="error" title="Action failed">
          {removeError}
        </Alert>
      )}
      {emails.isError && !emails.data ? (
        <LoadFailure
          title="The admin emails did not load."
          error={emails.error}
          onRetry={() => void emails.refetch()}
          retrying={emails.isFetching}
        />
      ) : (
        <Table
          caption="Admin emails"
          captionHidden
          columns={columns}
          rows={emails.data?.emails}
          rowKey={(row) => row.email}
          loading={emails.isPending}
          emptyText="No admin emails."
          stacked
        />
      )}
      <Modal
        open={removing !== null}
        title={`Remove ${removing?.email ?? ''}?`}
        confirmLabel="Remove"
        confirmVariant="danger"
        busy={remove.isPending}
        busyText="Removing…"
        onCancel={() => setRemoving(null)}
        onConfirm={() => void onRemove()}
      >
        <p>This address no longer makes its account an admin.</p>
      </Modal>
    </section>
  );
}
