import type { ColumnType, Generated, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface NodesTable {
  id: string; name: string; region: string; ip: string; ssh_user: string | null; ssh_port: number | null; endpoint: string; public_key: string;
  node_index: number; ipv4_cidr: string; ipv6_cidr: string; tags: ColumnType<string[], string[] | undefined, string[]>; created_at: Timestamp; last_seen_at: NullableTimestamp;
}
export interface DevicesTable {
  id: string; user_id: string; org_id: string | null; name: string; platform: string; is_active: Generated<boolean>; public_key: string | null;
  private_key_sealed: string | null; client_keys: Generated<boolean>; node_id: string | null; ipv4: string | null; ipv6: string | null;
  key_created_at: NullableTimestamp; created_at: Timestamp;
}
export interface EntitlementsTable { subscription_id: string; user_id: string | null; org_id: string | null; plan_code: string; status: string; updated_at: Timestamp }

export interface ProvisioningDatabase {
  nodes: NodesTable;
  devices: DevicesTable;
  entitlements: EntitlementsTable;
  outbox: { id: string; subject: string; envelope: unknown };
}

export type Device = Selectable<DevicesTable>;
export type Node = Selectable<NodesTable>;
