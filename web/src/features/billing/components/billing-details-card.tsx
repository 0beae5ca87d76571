import { useEffect, useId, useState, type FormEvent } from 'react';
import { failureMessage } from '../../../lib/api-client';
import { Alert, Button, Card, Field, Input, Skeleton, TextArea } from '../../../ui';
import { useBillingDetails, useSetBillingDetails, type BillingDetails } from '../api/billing-details';

const empty: BillingDetails = { company_name: '', address: '', vat_id: '' };

/**
 * Billing details for invoices (issue #26): company name, address and VAT ID, shown on every
 * receipt. `editable` false: an organization's admin, who reads them while its owners set them.
 */
export function BillingDetailsCard({ orgId, editable }: { orgId: string | null; editable: boolean }) {
  const details = useBillingDetails(orgId);
  const save = useSetBillingDetails(orgId);
  const [form, setForm] = useState<BillingDetails>(empty);
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string; field?: string } | null>(null);
  const id = useId();
  useEffect(() => {
    if (details.data) setForm(details.data);
  }, [details.data]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (save.isPending) return;
    setResult(null);
    save.mutate(form, {
      onSuccess: (saved) => {
        setForm(saved);
        setResult({ tone: 'success', text: 'Saved. Every receipt shows these details, earlier ones too.' });
      },
      onError: (failure) =>
        setResult({
          tone: 'error',
          text: failureMessage(failure, 'We couldn’t save the billing details. Please try again in a moment.'),
        }),
    });
  }

  const field = (key: keyof BillingDetails) => ({
    value: form[key],
    readOnly: !editable,
    onChange: (event: { target: { value: string } }) => setForm({ ...form, [key]: event.target.value }),
  });
  const vatError = result?.tone === 'error' && /VAT ID/.test(result.text) ? result.text : undefined;

  return (
    <Card as="section" aria-labelledby={`${id}-title`} className="billing-plan-card" data-testid="billing-details">
      <h2 id={`${id}-title`} className="qw-card__title">
        Billing details
      </h2>
      <p className="qw-muted qw-small">
        {editable
          ? 'The company name, address and VAT ID to show on your receipts. Leave a field empty to leave it off.'
          : 'The company name, address and VAT ID on its receipts. Only an owner of the organization can change them.'}
      </p>
      {details.isPending && <Skeleton height={120} />}
      {details.isError && (
        <Alert tone="error">
          {failureMessage(details.error, 'We couldn’t load the billing details. Please reload the page.')}
        </Alert>
      )}
      {details.data && (
        <form className="qw-stack" onSubmit={onSubmit} noValidate aria-label="Billing details">
          {result && !vatError && (
            <div data-testid="billing-details-result">
              <Alert tone={result.tone}>{result.text}</Alert>
            </div>
          )}
          <Field id={`${id}-company`} label="Company name">
            <Input {...field('company_name')} autoComplete="organization" maxLength={200} />
          </Field>
          <Field id={`${id}-address`} label="Address">
            <TextArea {...field('address')} autoComplete="street-address" rows={3} maxLength={500} />
          </Field>
          <Field id={`${id}-vat`} label="VAT ID" hint="For example DE123456789." error={vatError}>
            <Input {...field('vat_id')} maxLength={32} />
          </Field>
          {editable && (
            <div>
              <Button type="submit" busy={save.isPending} busyText="Saving…">
                Save billing details
              </Button>
            </div>
          )}
        </form>
      )}
    </Card>
  );
}
