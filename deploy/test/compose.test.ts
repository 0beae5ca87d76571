import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * No Docker engine runs here, so docker-compose.yml's `cluster` profile and deploy/Dockerfile's
 * targets are checked by reading them: what `docker compose --profile cluster up` would start
 * (three NATS servers routed to each other, two replicas of every service, each replica its own
 * image target), and that every service image is built from its own target and runs unprivileged.
 */
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const services = ['gateway', 'identity', 'billing', 'provisioning', 'telemetry', 'analytics'];

type ComposeService = {
  image?: string;
  profiles?: string[];
  command?: string[];
  build?: { context: string; dockerfile: string; target?: string };
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
};
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };

/** The services `docker compose` starts with these profiles on (those without a profile always). */
function started(profiles: string[]): Array<[string, ComposeService]> {
  return Object.entries(compose.services).filter(
    ([, service]) => !service.profiles || service.profiles.some((profile) => profiles.includes(profile)),
  );
}
const natsServers = (profiles: string[]) =>
  started(profiles).filter(([, service]) => service.image?.startsWith('nats:'));

describe('docker-compose.yml', () => {
  it('runs one NATS server and one of each service without a profile', () => {
    expect(natsServers([]).map(([name]) => name)).toEqual(['nats']);
    for (const name of services)
      expect(
        started([])
          .filter(([, service]) => service.build?.target === name)
          .map(([n]) => n),
      ).toEqual([name]);
  });

  it('runs three NATS servers in one cluster, each on its own volume, with the cluster profile', () => {
    const servers = natsServers(['cluster']);
    expect(servers.map(([name]) => name)).toEqual(['nats', 'nats-2', 'nats-3']);
    const data = servers.map(([, service]) => service.volumes?.find((volume) => volume.endsWith(':/data')));
    expect(new Set(data).size).toBe(3);
    const names = servers.map(([, service]) => service.environment?.SERVER_NAME);
    expect(new Set(names).size).toBe(3);
    // The first server reads the cluster configuration when `make up-cluster` names it.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's interpolation, not JavaScript's.
    expect(servers[0]![1].command).toEqual(['-c', '/etc/nats/${NATS_CONFIG:-nats.conf}']);
    expect(read('Makefile')).toMatch(/NATS_CONFIG=nats-cluster\.conf docker compose .*--profile cluster up/);
    for (const [, service] of servers.slice(1)) expect(service.command).toEqual(['-c', '/etc/nats/nats-cluster.conf']);
    for (const [, service] of servers) {
      expect(service.image).toMatch(/^nats:2\.1[2-9]/);
      expect(service.volumes).toContain('./deploy/nats-cluster.conf:/etc/nats/nats-cluster.conf:ro');
      expect(service.volumes).toContain('./var/bus/auth.conf:/etc/nats/auth.conf:ro');
    }
    const conf = read('deploy/nats-cluster.conf');
    expect(conf).toContain('include "nats.conf"');
    expect(conf).toMatch(/jetstream\s*{[^}]*sync_interval:\s*always/);
    expect(conf).toContain('server_name: $SERVER_NAME');
    for (const [name] of servers) expect(conf).toContain(`nats://${name}:6222`);
  });

  it('runs two replicas of every service with the cluster profile, each as its service runs', () => {
    const running = started(['cluster']);
    for (const name of services) {
      const replicas = running.filter(([, service]) => service.build?.target === name);
      expect(replicas.map(([n]) => n)).toEqual([name, `${name}-2`]);
      const [first, second] = replicas.map(([, service]) => service);
      expect(second!.command).toEqual(first!.command);
      // What the image itself runs (its CMD): the service's built bundle.
      expect(first!.command).toEqual(['node', '--enable-source-maps', `services/${name}/dist/main.mjs`]);
      expect(second!.environment).toEqual(first!.environment);
      expect(second!.volumes).toEqual(first!.volumes);
      expect(second!.build).toEqual({ context: '.', dockerfile: 'deploy/Dockerfile', target: name });
    }
    const published = running.flatMap(([, service]) => service.ports ?? []).map((port) => port.split(':').at(-2));
    expect(new Set(published).size).toBe(published.length);
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = read('deploy/Dockerfile');
  const stages = [...dockerfile.matchAll(/^FROM (\S+) AS (\S+)$/gm)].map(([, from, name]) => ({ from, name }));

  it('builds one target per service from a shared runtime that runs as the unprivileged node user', () => {
    for (const name of services) expect(stages).toContainEqual({ from: 'runtime', name });
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).toMatch(/^USER node$/m);
    expect(dockerfile).not.toMatch(/^USER (root|0)\b/m);
    for (const name of services) {
      const stage = dockerfile.slice(dockerfile.indexOf(`AS ${name}\n`)).split(/^FROM /m)[0]!;
      expect(stage).toContain(`COPY services/${name} services/${name}`);
      // The service's bundle from the build stage, run by plain Node (no TypeScript loader).
      expect(stage).toContain(`COPY --from=services /app/services/${name}/dist services/${name}/dist`);
      expect(stage).toContain(`CMD ["node", "--enable-source-maps", "services/${name}/dist/main.mjs"]`);
    }
    expect(stages).toContainEqual({ from: 'deps', name: 'services' });
    expect(dockerfile).toMatch(/^RUN npx tsx scripts\/build-services\.ts$/m);
    // A build without --target gives the gateway, as before the file had targets.
    expect(stages.at(-1)?.name).toBe('gateway');
  });

  it('installs with every workspace package of the lockfile in place (npm ci refuses a missing one)', () => {
    const deps = dockerfile.slice(dockerfile.indexOf('AS deps'), dockerfile.indexOf('RUN npm ci'));
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, unknown> };
    const workspaces = Object.keys(lock.packages).filter((key) => key !== '' && !key.includes('node_modules'));
    expect(workspaces.length).toBeGreaterThan(8);
    for (const workspace of workspaces) expect(deps).toContain(`COPY ${workspace}/package.json ${workspace}/`);
  });

  it('keeps secrets, local files and the git history out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['.git', 'var', 'node_modules', '.env']) expect(ignored).toContain(entry);
  });
});
