/**
 * The demo `make dev` prints: an admin account (through the real sign-up API, then marked
 * verified), so a person can sign in at once.
 */
import pg from 'pg';

export const demoAdminEmail = 'admin@quietwire.test';

// Three minutes: on a busy machine (two cores, tests running) eight services and three node agents
// starting at once took two before the gateway answered.
async function waitForHealth(publicUrl: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(new URL('/api/health', publicUrl));
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the product did not become healthy in time');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export async function seedDemo(options: {
  publicUrl: string;
  adminPassword: string;
  databaseAdminUrl: string;
}): Promise<void> {
  await waitForHealth(options.publicUrl);
  const response = await fetch(new URL('/api/auth/signup', options.publicUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: demoAdminEmail, password: options.adminPassword }),
  });
  if (!response.ok && response.status !== 409)
    throw new Error(`demo admin sign-up failed: ${response.status} ${await response.text()}`);
  const client = new pg.Client({ connectionString: options.databaseAdminUrl });
  await client.connect();
  try {
    await client.query(
      'update identity.users set email_verified_at = coalesce(email_verified_at, now()) where email = $1',
      [demoAdminEmail],
    );
    const owned = await client.query(
      `select 1 from billing.subscriptions s join billing.customers c on c.id = s.customer_id
                                      where c.email = $1 and s.status = 'active'`,
      [demoAdminEmail],
    );
    if (owned.rowCount === 0) await buyDemoPlan(options);
  } finally {
    await client.end();
  }
}

async function api(publicUrl: string, path: string, body: unknown, token?: string): Promise<any> {
  const response = await fetch(new URL(path, publicUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(data)}`);
  return data;
}

/** A Personal plan for the demo admin through the test checkout, so devices can be added at once. */
async function buyDemoPlan(options: { publicUrl: string; adminPassword: string }): Promise<void> {
  const checkout = await api(options.publicUrl, '/api/checkout', { plan_code: 'personal', quantity: 1 });
  if (!String(checkout.url).includes('/test-checkout/')) return; // Stripe is configured: no demo purchase.
  await api(options.publicUrl, `/api/billing/test-checkout/${checkout.session_id}/pay`, {
    email: demoAdminEmail,
    card_number: '4242424242424242',
  });
  const session = await api(options.publicUrl, '/api/auth/login', {
    email: demoAdminEmail,
    password: options.adminPassword,
  });
  await api(
    options.publicUrl,
    '/api/checkout/claim',
    { session_id: checkout.session_id, email: demoAdminEmail },
    session.access_token,
  );
}
