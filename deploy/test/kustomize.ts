import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';

/**
 * The part of Kustomize that deploy/k8s uses, rendered offline (no kustomize binary here):
 * `resources` (files, and folders holding a kustomization.yaml), `namespace`, `replicas`,
 * `images`, and `patches` (a strategic merge patch matched by kind and name, or a JSON 6902 patch
 * applied to every object its `target` selects). Anything else in a kustomization.yaml is refused,
 * so a field this renderer would silently skip cannot creep into the manifests.
 */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
};

type Target = { kind?: string; name?: string };
type Kustomization = {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  replicas?: Array<{ name: string; count: number }>;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  patches?: Array<{ path: string; target?: Target }>;
};

const known = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'replicas', 'images', 'patches']);
/** Kinds that live outside any namespace (of those the manifests could hold). */
const clusterScoped = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass', 'PersistentVolume']);

function readObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Strategic merge as Kubernetes does it for the fields these manifests patch: maps merge key by
 * key, lists of named items (containers, env, ports, volumes) merge item by item on `name`, any
 * other list is replaced, and `null` deletes.
 */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (patch === null) return undefined;
  if (isMap(base) && isMap(patch)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      const next = strategicMerge(base[key], value);
      if (next === undefined) delete merged[key];
      else merged[key] = next;
    }
    return merged;
  }
  const named = (list: unknown[]) => list.every((item) => isMap(item) && typeof item.name === 'string');
  if (Array.isArray(base) && Array.isArray(patch) && named(base) && named(patch)) {
    const merged = base.map((item) => item as Record<string, unknown>);
    for (const item of patch as Array<Record<string, unknown>>) {
      const at = merged.findIndex((existing) => existing.name === item.name);
      if (at >= 0) merged[at] = strategicMerge(merged[at], item) as Record<string, unknown>;
      else merged.push(item);
    }
    return merged;
  }
  return patch;
}

type JsonPatchOp = { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown };

/** RFC 6902 add, replace and remove on the object (the operations the overlays use). */
export function jsonPatch(object: K8sObject, ops: JsonPatchOp[]): K8sObject {
  const copy = structuredClone(object);
  for (const op of ops) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    let parent: any = copy;
    for (const key of keys) {
      parent = parent?.[Array.isArray(parent) ? Number(key) : key];
      if (parent === undefined) throw new Error(`${object.kind}/${object.metadata.name}: no ${op.path}`);
    }
    const index = Array.isArray(parent) ? (last === '-' ? parent.length : Number(last)) : last;
    if (op.op === 'remove') {
      if (Array.isArray(parent)) parent.splice(index as number, 1);
      else delete parent[index];
    } else if (op.op === 'replace') {
      if (!(index in parent))
        throw new Error(`${object.kind}/${object.metadata.name}: nothing to replace at ${op.path}`);
      parent[index] = op.value;
    } else if (Array.isArray(parent)) parent.splice(index as number, 0, op.value);
    else parent[index] = op.value;
  }
  return copy;
}

function selects(target: Target, object: K8sObject): boolean {
  return (!target.kind || target.kind === object.kind) && (!target.name || target.name === object.metadata.name);
}

function containersOf(object: K8sObject): Array<{ image?: string }> {
  const spec = (object.spec as { template?: { spec?: { containers?: unknown[]; initContainers?: unknown[] } } })
    ?.template?.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])] as Array<{ image?: string }>;
}

/** Renders the kustomization in `folder` into its objects, as `kustomize build folder` would. */
export function renderKustomization(folder: string): K8sObject[] {
  const file = path.join(folder, 'kustomization.yaml');
  const k = parse(readFileSync(file, 'utf8')) as Kustomization;
  const unknown = Object.keys(k).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new Error(`${file}: this renderer does not do ${unknown.join(', ')}`);

  let objects: K8sObject[] = [];
  for (const resource of k.resources ?? []) {
    const at = path.resolve(folder, resource);
    if (!existsSync(at)) throw new Error(`${file}: no resource ${resource}`);
    objects.push(...(statSync(at).isDirectory() ? renderKustomization(at) : readObjects(at)));
  }

  for (const patch of k.patches ?? []) {
    const content = parse(readFileSync(path.resolve(folder, patch.path), 'utf8')) as unknown;
    if (Array.isArray(content)) {
      if (!patch.target) throw new Error(`${file}: the JSON patch ${patch.path} needs a target`);
      const target = patch.target;
      const matched = objects.filter((object) => selects(target, object));
      if (matched.length === 0) throw new Error(`${file}: ${patch.path} selects nothing`);
      objects = objects.map((object) =>
        selects(target, object) ? jsonPatch(object, content as JsonPatchOp[]) : object,
      );
    } else {
      const change = content as K8sObject;
      const at = objects.findIndex(
        (object) => object.kind === change.kind && object.metadata.name === change.metadata.name,
      );
      if (at < 0)
        throw new Error(`${file}: ${patch.path} patches ${change.kind}/${change.metadata.name}, which is not there`);
      objects[at] = strategicMerge(objects[at], change) as K8sObject;
    }
  }

  for (const { name, count } of k.replicas ?? []) {
    const matched = objects.filter(
      (object) => object.metadata.name === name && ['Deployment', 'StatefulSet'].includes(object.kind),
    );
    if (matched.length === 0) throw new Error(`${file}: replicas for ${name}, which is not there`);
    for (const object of matched) (object.spec as { replicas?: number }).replicas = count;
  }

  for (const image of k.images ?? []) {
    let used = false;
    for (const container of objects.flatMap(containersOf)) {
      const [repository, tag] = (container.image ?? '').split(':') as [string, string | undefined];
      if (repository !== image.name) continue;
      used = true;
      container.image = `${image.newName ?? repository}:${image.newTag ?? tag ?? 'latest'}`;
    }
    if (!used) throw new Error(`${file}: no container runs the image ${image.name}`);
  }

  if (k.namespace) {
    for (const object of objects) {
      if (object.kind === 'Namespace') object.metadata.name = k.namespace;
      else if (!clusterScoped.has(object.kind)) object.metadata.namespace = k.namespace;
    }
  }
  return objects;
}
