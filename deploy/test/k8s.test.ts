import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { backendServices } from '@qw/contracts';
import { type K8sObject, renderKustomization } from './kustomize.ts';

/**
 * deploy/k8s rendered as `kustomize build` renders it (kustomize.ts, offline), every object
 * validated against the Kubernetes API schemas of kubernetes-models, and the rules of
 * docs/operations.md checked on what would be applied: every service a Deployment with both
 * probes on its internal port, requests and limits, no secret written out, a disruption budget;
 * the bus a StatefulSet of three servers with JetStream on volumes and `sync_interval: always`.
 */
const k8s = fileURLToPath(new URL('../k8s/', import.meta.url));
const services = ['gateway', ...backendServices];
const overlays = ['base', 'overlays/production', 'overlays/staging'];

/** Variables that hold a secret whatever their value: they must come from a Secret. */
const secretName = /SECRET|PASSWORD|PRIVATE|TOKEN_KEY|HASH_KEY|ENCRYPTION|DATABASE.*URL|MAIL_URL|CREDS/;
/** Variables naming a file that holds a secret: the file must be mounted from a Secret. */
const fileOfSecret = /^NATS_CREDS$|_FILE$/;
/** Values that look like a secret wherever they are written: a password in a URL, a key, a token. */
const secretValue = [
  /:\/\/[^/\s:@]+:[^@\s]+@/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(sk|rk|whsec)_(live|test)?_?[A-Za-z0-9]{8,}/,
];

async function modelFor(object: K8sObject) {
  const [group, version] = object.apiVersion.includes('/')
    ? object.apiVersion.split('/')
    : [undefined, object.apiVersion];
  const module = group
    ? `kubernetes-models/${group}/${version}/${object.kind}`
    : `kubernetes-models/${version}/${object.kind}`;
  const exported = (await import(module)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = exported[object.kind];
  if (!Model) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
  return new Model(object);
}

type Container = {
  name: string;
  image: string;
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
};
type PodTemplate = {
  metadata?: { labels?: Record<string, string> };
  spec: {
    containers: Container[];
    volumes?: Array<{ name: string; secret?: { secretName: string } }>;
    securityContext?: { runAsNonRoot?: boolean };
  };
};
const podOf = (object: K8sObject) => (object.spec as { template: PodTemplate }).template;
/** Every string in the object (a map's keys and values, a list's items), to look for secrets in. */
const stringsOf = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(stringsOf)
      : value && typeof value === 'object'
        ? Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)])
        : [];
const find = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name);

describe.each(overlays)('deploy/k8s/%s', (overlay) => {
  const objects = renderKustomization(path.join(k8s, overlay));

  it('validates every object against the Kubernetes API schemas', async () => {
    expect(objects.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const object of objects) {
      try {
        (await modelFor(object)).validate();
      } catch (error) {
        problems.push(`${object.kind}/${object.metadata.name}: ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    const names = objects.map((object) => `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it('runs every service as a Deployment with both probes on its internal port, requests and limits', () => {
    const deployments = objects.filter((object) => object.kind === 'Deployment');
    expect(deployments.map((object) => object.metadata.name).sort()).toEqual([...services].sort());
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const pod = podOf(deployment);
      expect(pod.spec.securityContext?.runAsNonRoot, name).toBe(true);
      for (const container of pod.spec.containers) {
        const internal = container.ports?.find((port) => port.name === 'internal');
        expect(internal?.containerPort, name).toBe(9080);
        expect(container.readinessProbe?.httpGet, name).toEqual({ path: '/readyz', port: 'internal' });
        expect(container.livenessProbe?.httpGet, name).toEqual({ path: '/healthz', port: 'internal' });
        for (const resource of ['cpu', 'memory']) {
          expect(container.resources?.requests?.[resource], `${name} ${resource} request`).toBeTruthy();
          expect(container.resources?.limits?.[resource], `${name} ${resource} limit`).toBeTruthy();
        }
        // The internal port is the one the process serves probes on (HTTP_PORT, or the gateway's own).
        const env = Object.fromEntries((container.env ?? []).map((entry) => [entry.name, entry]));
        const port = name === 'gateway' ? env.INTERNAL_HTTP_PORT : env.HTTP_PORT;
        expect(port?.value, name).toBe('9080');
      }
    }
  });

  it('writes no secret out: secret variables come from a Secret, and no value looks like one', () => {
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    for (const object of objects) {
      for (const text of stringsOf(object))
        for (const pattern of secretValue) expect(text, object.metadata.name).not.toMatch(pattern);
      if (!['Deployment', 'StatefulSet'].includes(object.kind)) continue;
      for (const container of podOf(object).spec.containers) {
        for (const entry of container.env ?? []) {
          if (fileOfSecret.test(entry.name)) {
            // A path, not a secret: the file must come from a Secret volume.
            const mount = container.volumeMounts?.find((at) => entry.value?.startsWith(`${at.mountPath}/`));
            const volume = podOf(object).spec.volumes?.find((at) => at.name === mount?.name);
            expect(volume?.secret, `${object.metadata.name} ${entry.name}`).toBeTruthy();
            continue;
          }
          if (!secretName.test(entry.name)) continue;
          expect(entry.value, `${object.metadata.name} ${entry.name}`).toBeUndefined();
          expect(entry.valueFrom?.secretKeyRef, `${object.metadata.name} ${entry.name}`).toBeTruthy();
        }
      }
    }
    for (const configMap of objects.filter((object) => object.kind === 'ConfigMap'))
      for (const key of Object.keys((configMap.data as Record<string, string>) ?? {}))
        expect(key, `${configMap.metadata.name}`).not.toMatch(secretName);
  });

  it('gives every service and the bus a disruption budget and a Service that selects its pods', () => {
    for (const name of [...services, 'nats']) {
      const budget = find(objects, 'PodDisruptionBudget', name);
      expect(budget, name).toBeTruthy();
      const workload = find(objects, 'Deployment', name) ?? find(objects, 'StatefulSet', name);
      const labels = podOf(workload!).metadata?.labels ?? {};
      const selector = (budget!.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      expect(labels, name).toMatchObject(selector);
      const service = find(objects, 'Service', name);
      expect(labels, name).toMatchObject((service!.spec as { selector: Record<string, string> }).selector);
    }
  });

  it('runs the bus as a StatefulSet of three with JetStream on volumes, synced on every write, routed to each other', () => {
    const nats = find(objects, 'StatefulSet', 'nats')!;
    const spec = nats.spec as {
      replicas: number;
      serviceName: string;
      volumeClaimTemplates: Array<{ metadata: { name: string } }>;
    };
    expect(spec.replicas).toBe(3);
    expect(spec.volumeClaimTemplates.map((claim) => claim.metadata.name)).toEqual(['data']);
    const conf = (find(objects, 'ConfigMap', 'nats-config')!.data as Record<string, string>)['nats.conf']!;
    expect(conf).toMatch(/jetstream\s*{[^}]*store_dir:\s*\/data\/jetstream/);
    expect(conf).toMatch(/jetstream\s*{[^}]*sync_interval:\s*always/);
    for (let i = 0; i < 3; i += 1) expect(conf).toContain(`nats://nats-${i}.${spec.serviceName}:6222`);
    expect(find(objects, 'Service', spec.serviceName)?.spec).toMatchObject({ clusterIP: 'None' });
    const image = podOf(nats).spec.containers[0]!.image;
    expect(image).toMatch(/^nats:2\.1[2-9]/);
  });

  it('keeps Postgres outside: every service but the gateway reads DATABASE_URL from its Secret', () => {
    expect(objects.filter((object) => /postgres/i.test(object.metadata.name))).toEqual([]);
    for (const name of backendServices) {
      const env = podOf(find(objects, 'Deployment', name)!).spec.containers[0]!.env ?? [];
      expect(env.find((entry) => entry.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef, name).toEqual({
        name: `${name}-secrets`,
        key: 'database-url',
      });
    }
  });
});

describe('the overlays', () => {
  it('production pins the images and runs three gateways and provisionings; staging one of each', () => {
    const production = renderKustomization(path.join(k8s, 'overlays/production'));
    const staging = renderKustomization(path.join(k8s, 'overlays/staging'));
    const replicas = (objects: K8sObject[], name: string) =>
      (find(objects, 'Deployment', name)!.spec as { replicas: number }).replicas;
    expect(replicas(production, 'gateway')).toBe(3);
    expect(replicas(production, 'provisioning')).toBe(3);
    expect(replicas(production, 'billing')).toBe(2);
    for (const name of services) expect(replicas(staging, name)).toBe(1);
    for (const name of services)
      expect(podOf(find(production, 'Deployment', name)!).spec.containers[0]!.image).toBe(
        `registry.example.com/quietwire/${name}:0.4.0`,
      );
    expect(
      staging.every((object) => object.metadata.namespace === 'quietwire-staging' || object.kind === 'Namespace'),
    ).toBe(true);
    expect(find(staging, 'Namespace', 'quietwire-staging')).toBeTruthy();
    // Only production is reachable from outside: the gateway's public port, and the bus for the nodes.
    const ingress = find(production, 'Ingress', 'gateway')!.spec as {
      rules: Array<{ http: { paths: Array<{ backend: { service: { name: string; port: { name: string } } } }> } }>;
    };
    expect(ingress.rules[0]!.http.paths[0]!.backend.service).toEqual({ name: 'gateway', port: { name: 'http' } });
    expect(staging.filter((object) => object.kind === 'Ingress')).toEqual([]);
    expect(podOf(find(staging, 'Deployment', 'billing')!).spec.containers[0]!.resources?.requests).toEqual({
      cpu: '50m',
      memory: '128Mi',
    });
    expect(podOf(find(production, 'Deployment', 'gateway')!).spec.containers[0]!.resources?.limits).toEqual({
      cpu: '2',
      memory: '768Mi',
    });
  });
});
