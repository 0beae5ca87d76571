import type { ColumnType, Generated } from 'kysely';
import type { PlatformTables } from '@qw/platform/db';

/** Analytics' own schema: the registry of projection generations (their tables live beside it). */
export interface GenerationsTable {
  generation: Generated<number>;
  definition: number;
  status: 'building' | 'live' | 'retired';
  started_at: ColumnType<Date, Date | string, Date | string>;
  live_since: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  retired_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  dropped_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The platform's tables (outbox, inbox, rate events, mail jobs) come with `PlatformTables`. */
export interface AnalyticsDatabase extends PlatformTables {
  generations: GenerationsTable;
}
