import { describe, expect, it } from 'vitest';
import {
  busAccess,
  desiredPeersRpc,
  fillSubject,
  isTemplate,
  latestTelemetryRpc,
  mayAsk,
  nodeBusAccess,
  nodeUser,
  operatorUser,
  registerNodeRpc,
  reportNodeRpc,
  rpcCatalog,
  rpcOwner,
  type BusPrincipal,
} from '../src/index.ts';

const principals = Object.keys(busAccess) as BusPrincipal[];
const listed = (principal: BusPrincipal, subject: string) =>
  busAccess[principal].calls.some((contract) => contract.subject === subject);

describe('who may ask which RPC', () => {
  it('lists only RPCs that exist, and serves every RPC of its own', () => {
    const subjects = new Set(rpcCatalog.map((contract) => contract.subject));
    for (const principal of principals) {
      for (const contract of busAccess[principal].calls) expect(subjects, principal).toContain(contract.subject);
      const own = rpcCatalog.filter((contract) => rpcOwner(contract) === principal).map((c) => c.subject);
      expect(busAccess[principal].serves.map((c) => c.subject).sort(), principal).toEqual(own.sort());
    }
  });

  it('lets a principal ask exactly the RPCs its calls list (every principal, every RPC)', () => {
    for (const principal of principals)
      for (const contract of rpcCatalog.filter((c) => !isTemplate(c.subject)))
        expect(mayAsk(principal, contract), `${principal} ${contract.subject}`).toBe(
          listed(principal, contract.subject),
        );
  });

  it("lets a node ask only its own node's RPCs, and no service ask them", () => {
    for (const contract of rpcCatalog.filter((c) => isTemplate(c.subject))) {
      expect(mayAsk(nodeUser('eu-1'), contract, { node: 'eu-1' })).toBe(true);
      expect(mayAsk(nodeUser('eu-2'), contract, { node: 'eu-1' })).toBe(false);
      for (const principal of principals) expect(mayAsk(principal, contract, { node: 'eu-1' })).toBe(false);
    }
    expect(nodeBusAccess('eu-1').calls.map((c) => c.subject)).toEqual([
      registerNodeRpc.subject,
      desiredPeersRpc.subject,
      reportNodeRpc.subject,
    ]);
    expect(nodeBusAccess('eu-1').publishes.every((subject) => subject.startsWith('node.eu-1.'))).toBe(true);
    expect(mayAsk(nodeUser('eu-1'), latestTelemetryRpc)).toBe(false);
    expect(fillSubject(registerNodeRpc.subject, { node: 'eu-1' })).toBe('provisioning.rpc.node.eu-1.register');
  });

  it('asks telemetry.rpc.latest from provisioning only', () => {
    expect(principals.filter((principal) => mayAsk(principal, latestTelemetryRpc))).toEqual(['provisioning']);
  });

  it('leaves the tools of the tests and the demo to the operator alone', () => {
    const nobodys = rpcCatalog
      .filter((contract) => !isTemplate(contract.subject))
      .filter((contract) => principals.every((principal) => !mayAsk(principal, contract)))
      .map((contract) => contract.subject);
    expect(nobodys).toEqual([
      'billing.rpc.advance-clock',
      'billing.rpc.start-clock',
      'identity.rpc.admin-status',
      'identity.rpc.demo-sign-up',
      'provisioning.rpc.advance-clock',
    ]);
    for (const contract of rpcCatalog) expect(mayAsk(operatorUser, contract, { node: 'eu-1' })).toBe(true);
  });
});
