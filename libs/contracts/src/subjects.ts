/**
 * Subjects that name a node carry its name in place of `{node}`:
 * `provisioning.node.{node}.peer-set`. NATS permissions give each node agent exactly the
 * subjects with its own name, so the name in a subject is authenticated by the server: a service
 * can take it as the sender's identity. A node's name is its identity on the bus because its
 * credentials exist before the node ever registers (provisioning's id for it comes later).
 */
export const nodeParam = '{node}';

/** Lower-case letters, digits and dashes: a single subject token, also a valid NATS user name. */
export const nodeNamePattern = '^[a-z0-9][a-z0-9-]{0,62}$';
const nodeName = new RegExp(nodeNamePattern);

export function isNodeName(value: unknown): value is string {
  return typeof value === 'string' && nodeName.test(value);
}

export type SubjectParams = { node?: string | undefined };

export function isTemplate(subject: string): boolean {
  return subject.includes(nodeParam);
}

/** The concrete subject: `{node}` replaced by the node's name (which must be one). */
export function fillSubject(template: string, params: SubjectParams = {}): string {
  if (!isTemplate(template)) return template;
  if (!isNodeName(params.node)) throw new Error(`${template} needs a node name, got ${String(params.node)}`);
  return template.replace(nodeParam, params.node);
}

/** The template with `{node}` as a single-token wildcard: what a stream or a server subscribes to. */
export function wildcardSubject(template: string): string {
  return template.replace(nodeParam, '*');
}

/** The parameters a concrete subject carries for its template, or null when it does not fit it. */
export function subjectParams(template: string, subject: string): SubjectParams | null {
  const want = template.split('.');
  const got = subject.split('.');
  if (want.length !== got.length) return null;
  const params: SubjectParams = {};
  for (const [i, token] of want.entries()) {
    if (token === nodeParam) {
      if (!isNodeName(got[i])) return null;
      params.node = got[i];
    } else if (token !== got[i]) return null;
  }
  return params;
}
