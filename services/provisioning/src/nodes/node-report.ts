import type { Kysely } from 'kysely';
import { AppError, type NodeReport } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';
import { recordNodeReport } from './nodes.repository.ts';

/**
 * A node agent's report, every NODE_REPORT_SECONDS: the node is seen now (one silent for 30 s is
 * unreachable, `isNodeReachable`), with the agent's version and start and its resolver's health
 * (an agent without one clears it). A name that never
 * registered has nothing to report on.
 */
export async function reportNode(db: Kysely<ProvisioningDatabase>, nodeName: string, report: NodeReport) {
  const recorded = await recordNodeReport(db, nodeName, {
    agentVersion: report.agent_version,
    startedAt: new Date(report.started_at),
    resolver: report.resolver,
  });
  if (!recorded) throw new AppError('not_found', 'This node has not registered.');
  return {};
}
