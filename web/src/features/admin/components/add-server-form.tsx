import { regions } from '@qw/contracts';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { failureMessage, isApiError } from '../../../lib/api-client';
import { Alert, Button, Card, Field, Input, Select } from '../../../ui';
import { type AddedServer, useAddServer } from '../api/add-server';
import {
  type AddServerDraft,
  type AddServerErrors,
  type AddServerField,
  checkAddServer,
  emptyAddServerDraft,
  fieldOfRefusal,
} from '../utils/add-server-rules';

const regionOptions = [
  { value: '', label: 'Choose a region' },
  ...regions.map((region) => ({ value: region.id, label: region.label })),
];

/**
 * Add server (issue #23): name, region, city, public endpoint, tags, capacity and optional SSH
 * details. Problems are shown by their field, the server's refusals (400/409) too; on success the
 * page shows the one-time enrolment.
 */
export function AddServerForm({ onAdded, onCancel }: { onAdded: (added: AddedServer) => void; onCancel: () => void }) {
  const add = useAddServer();
  const [draft, setDraft] = useState<AddServerDraft>(emptyAddServerDraft);
  const [errors, setErrors] = useState<AddServerErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const titleId = useId();

  useEffect(() => nameRef.current?.focus(), []);

  const set = (field: AddServerField) => (event: { target: { value: string } }) =>
    setDraft((current) => ({ ...current, [field]: event.target.value }));

  function focusFirstProblem(found: AddServerErrors) {
    const first = Object.keys(found)[0];
    if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(null);
    const { body, errors: found } = checkAddServer(draft);
    setErrors(found);
    if (!body) {
      focusFirstProblem(found);
      return;
    }
    try {
      const added = await add.mutateAsync(body);
      // The answer holds the token: hand it to the dialog and drop it from the mutation at once.
      add.reset();
      setDraft(emptyAddServerDraft);
      onAdded(added);
    } catch (error) {
      add.reset();
      const field = isApiError(error) && error.status < 500 ? fieldOfRefusal(error) : null;
      const message = failureMessage(error, 'The server was not added. Try again in a moment.');
      if (field) {
        const refused = { [field]: message };
        setErrors(refused);
        focusFirstProblem(refused);
      } else setFormError(message);
    }
  }

  const field = (name: AddServerField) => ({
    name,
    value: draft[name],
    onChange: set(name),
  });

  return (
    <Card as="section" className="admin-add-server" aria-labelledby={titleId}>
      <h2 id={titleId} className="qw-card__title">
        Add a server
      </h2>
      <p className="qw-small qw-muted">
        The server waits for its host: you get a one-time enrolment token and the command to run there.
      </p>
      {formError && (
        <Alert tone="error" title="Not added">
          {formError}
        </Alert>
      )}
      <form ref={formRef} className="admin-add-server__form" noValidate onSubmit={submit}>
        <Field label="Name" hint="Lowercase letters, digits and dashes, like fra-2." error={errors.name} required>
          <Input ref={nameRef} autoComplete="off" spellCheck={false} maxLength={40} {...field('name')} />
        </Field>
        <Field label="Region" error={errors.region} required>
          <Select options={regionOptions} {...field('region')} />
        </Field>
        <Field label="City" error={errors.city} required>
          <Input autoComplete="off" maxLength={80} {...field('city')} />
        </Field>
        <Field
          label="Public endpoint"
          hint="host:port devices connect to, like 203.0.113.20:51820."
          error={errors.endpoint}
          required
        >
          <Input autoComplete="off" spellCheck={false} inputMode="url" {...field('endpoint')} />
        </Field>
        <Field
          label="Tags"
          hint="Comma separated, like gaming. Servers tagged gaming carry the Gaming plan’s low-latency routes."
          error={errors.tags}
        >
          <Input autoComplete="off" spellCheck={false} {...field('tags')} />
        </Field>
        <Field label="Capacity in peers" hint="Placement puts no more devices on it." error={errors.capacity} required>
          <Input type="number" min={1} max={1_000_000} step={1} inputMode="numeric" {...field('capacity')} />
        </Field>
        <Field label="SSH user" hint="Optional; root if empty." error={errors.ssh_user}>
          <Input autoComplete="off" spellCheck={false} {...field('ssh_user')} />
        </Field>
        <Field label="SSH port" hint="Optional; 22 if empty." error={errors.ssh_port}>
          <Input type="number" min={1} max={65535} step={1} inputMode="numeric" {...field('ssh_port')} />
        </Field>
        <div className="admin-add-server__actions">
          <Button type="button" variant="secondary" onClick={onCancel} disabled={add.isPending}>
            Cancel
          </Button>
          <Button type="submit" busy={add.isPending} busyText="Adding…">
            Add server
          </Button>
        </div>
      </form>
    </Card>
  );
}
