import type { Kysely } from 'kysely';

/**
 * A server's 24 h history (issue #26) shows its traffic and peers beside CPU, load and memory: each
 * host sample may now carry the WireGuard interface's byte counters and its peer count. Null for
 * samples from agents that do not send them. Rows are still deleted after a day.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('vps_metrics')
    .addColumn('net_rx_bytes', 'bigint')
    .addColumn('net_tx_bytes', 'bigint')
    .addColumn('peers', 'integer')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('vps_metrics')
    .dropColumn('net_rx_bytes')
    .dropColumn('net_tx_bytes')
    .dropColumn('peers')
    .execute();
}
