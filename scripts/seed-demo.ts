/**
 * The demo `make dev` prints: an admin account (through the real sign-up API, then marked
 * verified), so a person can sign in at once.
 */
import pg from 'pg';

export const demoAdminEmail = 'admin@quietwire.test';

async function waitForHealth(publicUrl: string, timeoutMs = 90_000): Promise<void> {
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

export async function seedDemo(options: { publicUrl: string; adminPassword: string; databaseAdminUrl: string }): Promise<void> {
  await waitForHealth(options.publicUrl);
  const response = await fetch(new URL('/api/auth/signup', options.publicUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: demoAdminEmail, password: options.adminPassword }),
  });
  if (!response.ok && response.status !== 409) throw new Error(`demo admin sign-up failed: ${response.status} ${await response.text()}`);
  const client = new pg.Client({ connectionString: options.databaseAdminUrl });
  await client.connect();
  try {
    await client.query('update identity.users set email_verified_at = coalesce(email_verified_at, now()) where email = $1', [demoAdminEmail]);
  } finally {
    await client.end();
  }
}
