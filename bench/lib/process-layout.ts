import { backendServices, type BackendService } from '@qw/contracts';
import { freePort, spawnTsProcess, testCallerKeys, type SpawnedProcess } from '@qw/testkit';
import type { Stack } from '../../services/gateway/test/support/stack.ts';

/**
 * The stack's data served as production runs it: the services of `names` and the gateway each in
 * its own Node process (their entry points bundled, as `make services` builds them), on the
 * stack's database and bus. The stack's own (in-process) instances of those services are stopped
 * first, so every request reaches the processes (NATS would otherwise share them out in the queue
 * group). Access tokens the stack's gateway issued stay valid: the gateway process gets the same
 * `jwtSecret`.
 */
export async function spawnProcessLayout(
  stack: Stack,
  options: {
    names: BackendService[];
    jwtSecret: string;
    adminEmails: string[];
    /** Per service: its settings beyond the common ones (the provisioning stack's sealing key). */
    settings?: Partial<Record<BackendService, Record<string, string>>>;
  },
): Promise<{ baseUrl: string; processes: SpawnedProcess[]; stop(): Promise<void> }> {
  const processes: SpawnedProcess[] = [];
  const stop = async () => {
    for (const child of processes.splice(0).reverse()) await child.stop();
  };
  try {
    for (const name of options.names) await stack.services[name]?.stop();
    const common = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HTTP_HOST: '127.0.0.1',
      BUS_NAMESPACE: '',
      CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
      PUBLIC_URL: stack.publicUrl,
    };
    for (const name of options.names) {
      processes.push(
        await spawnTsProcess(name, `services/${name}/src/main.ts`, {
          ...common,
          ...(stack.testBus.env(name) as Record<string, string>),
          HTTP_PORT: String(await freePort()),
          DATABASE_URL: await stack.database.provision(name),
          ...(name === 'identity' ? { ADMIN_EMAILS: options.adminEmails.join(','), MAIL_DIR: 'var/mail-test' } : {}),
          ...(name === 'provisioning' ? { MAIL_DIR: 'var/mail-test' } : {}),
          ...options.settings?.[name],
        }),
      );
    }
    const port = await freePort();
    processes.push(
      await spawnTsProcess('gateway', 'services/gateway/src/main.ts', {
        ...common,
        ...(stack.testBus.env('gateway') as Record<string, string>),
        CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
        HTTP_PORT: String(port),
        INTERNAL_HTTP_PORT: String(await freePort()),
        JWT_SECRET: options.jwtSecret,
        ADDRESS_HASH_KEY: 'bench-address-hash-key-of-32-characters-at-least',
        GATEWAY_SERVICES: options.names.filter((name) => backendServices.includes(name)).join(','),
        WEB_DIST: '/nonexistent',
      }),
    );
    const baseUrl = `http://127.0.0.1:${port}`;
    // Up when the gateway answers its health: every service listed answered a round trip.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const exited = processes.find((child) => child.child.exitCode !== null);
      if (exited) throw new Error(`${exited.name} exited: ${exited.output().slice(-800)}`);
      if ((await fetch(`${baseUrl}/api/health`).catch(() => undefined))?.ok) break;
      if (Date.now() > deadline)
        throw new Error(
          `the processes did not answer in 120 s: ${processes.map((child) => `${child.name}: ${child.output().slice(-300)}`).join('\n')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return { baseUrl, processes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
