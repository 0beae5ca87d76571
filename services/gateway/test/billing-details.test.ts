import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingService } from '@qw/billing';
import { startStack, type Stack } from './support/stack.ts';
import { customerWithPlan } from './support/products.ts';
import { ownOrganization } from './support/organizations.ts';

/**
 * Issue #26: billing details for invoices (company name, address, VAT ID), set by a personal
 * customer or an organization's owner, appear on every receipt, earlier ones included. Through the
 * real gateway, billing and identity.
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    label: 'billdetails',
    extra: (publicUrl) => [billingService({ PUBLIC_URL: publicUrl, BILLING_TEST_CLOCK: true, NODE_ENV: 'test' })],
  });
});
afterAll(async () => {
  await stack?.stop();
});

describe('billing details for invoices (issue #26)', () => {
  it('a personal customer sets them; every receipt shows them; a bad VAT ID is refused and changes nothing', async () => {
    const client = await customerWithPlan(stack, 'vera.details@example.com');
    expect((await client.call('GET', '/api/billing/details')).data).toEqual({
      company_name: '',
      address: '',
      vat_id: '',
    });
    const [invoice] = (await client.call('GET', '/api/billing')).data.invoices;
    expect((await client.call('GET', `/api/billing/invoices/${invoice.id}`)).data.billing_details).toBeNull();

    const set = await client.call('POST', '/api/billing/details', {
      company_name: '  Vera   Design  ',
      address: 'Hauptstraße 1\n\n10115 Berlin\nGermany',
      vat_id: 'de 123.456.789',
    });
    expect(set.statusCode).toBe(200);
    const stored = {
      company_name: 'Vera Design',
      address: 'Hauptstraße 1\n10115 Berlin\nGermany',
      vat_id: 'DE123456789',
    };
    expect(set.data).toEqual(stored);
    expect((await client.call('GET', '/api/billing/details')).data).toEqual(stored);
    // The receipt of a payment made before they were set shows them too.
    expect((await client.call('GET', `/api/billing/invoices/${invoice.id}`)).data.billing_details).toEqual(stored);

    const bad = await client.call('POST', '/api/billing/details', { company_name: 'X', address: '', vat_id: '123' });
    expect(bad.statusCode).toBe(400);
    expect(bad.data.error).toMatchObject({
      code: 'validation_failed',
      message:
        'A VAT ID starts with its country’s two letters followed by 2 to 14 letters or digits, such as DE123456789.',
    });
    expect((await client.call('GET', '/api/billing/details')).data).toEqual(stored);
  });

  it("an organization's owner sets its details: its receipts show them, not the owner's own", async () => {
    const owner = await customerWithPlan(stack, 'olaf.details@example.com', 'business10');
    const orgId = await ownOrganization(owner);
    await owner.call('POST', '/api/billing/details', { company_name: 'Olaf personally', address: '', vat_id: '' });
    const set = await owner.call('POST', `/api/billing/details?org_id=${orgId}`, {
      company_name: 'Olaf Logistics GmbH',
      address: 'Hafenweg 2, 20457 Hamburg',
      vat_id: 'DE987654321',
    });
    expect(set.statusCode).toBe(200);
    const [invoice] = (await owner.call('GET', `/api/billing?org_id=${orgId}`)).data.invoices;
    expect((await owner.call('GET', `/api/billing/invoices/${invoice.id}`)).data.billing_details).toEqual({
      company_name: 'Olaf Logistics GmbH',
      address: 'Hafenweg 2, 20457 Hamburg',
      vat_id: 'DE987654321',
    });
  });
});
