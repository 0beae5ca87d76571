import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kysely, sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import { builtOnce, connectDatabase, type Database } from '../src/db/index.ts';

type Shelf = { books: { id: number; owner: string; title: string; shelf: string | null } };

let database: TestDatabase;
let first: Database<Shelf>;
let second: Database<Shelf>;

beforeAll(async () => {
  database = await createTestDatabase('built-once');
  const url = await database.provision('shelf');
  first = connectDatabase<Shelf>(url, 'shelf');
  second = connectDatabase<Shelf>(url, 'shelf');
  await sql`create table books (id int primary key, owner text not null, title text not null, shelf text)`.execute(
    first.db,
  );
  await sql`insert into books values (1, 'ada', 'Notes', null), (2, 'ada', 'Sketches', 'top'),
    (3, 'bob', 'Letters', null), (4, 'ada', 'Tables', null)`.execute(first.db);
});

afterAll(async () => {
  await first?.db.destroy();
  await second?.db.destroy();
  await database?.drop();
});

describe('a query built once', () => {
  it("runs with each call's values, as the query built anew would", async () => {
    const builds: string[] = [];
    const unshelved = builtOnce((db: Kysely<Shelf>, owner: string) => {
      builds.push(owner);
      return db
        .selectFrom('books')
        .select(['id', 'title'])
        .where('owner', '=', owner)
        .where('shelf', 'is', null)
        .where('id', '<', 100)
        .orderBy('id');
    });
    expect(await unshelved(first.db, 'ada')).toEqual([
      { id: 1, title: 'Notes' },
      { id: 4, title: 'Tables' },
    ]);
    expect(await unshelved(first.db, 'bob')).toEqual([{ id: 3, title: 'Letters' }]);
    expect(await unshelved(first.db, 'eve')).toEqual([]);
    // Built once for this handle (with stand-ins, never a caller's value), once more for another.
    expect(builds).toHaveLength(1);
    expect(await unshelved(second.db, 'ada')).toHaveLength(2);
    expect(builds).toHaveLength(2);
    expect(builds.some((value) => ['ada', 'bob', 'eve'].includes(value))).toBe(false);
  });

  it('puts two values in their own places, whatever order the query uses them in', async () => {
    const byTitleAndOwner = builtOnce((db: Kysely<Shelf>, title: string, owner: string) =>
      db.selectFrom('books').select('id').where('owner', '=', owner).where('title', '=', title),
    );
    expect(await byTitleAndOwner(first.db, 'Sketches', 'ada')).toEqual([{ id: 2 }]);
    expect(await byTitleAndOwner(first.db, 'Sketches', 'bob')).toEqual([]);
    expect(await byTitleAndOwner(first.db, 'Letters', 'bob')).toEqual([{ id: 3 }]);
  });

  it('refuses a query whose value is not exactly one parameter, before running it', async () => {
    const twice = builtOnce((db: Kysely<Shelf>, owner: string) =>
      db.selectFrom('books').select('id').where('owner', '=', owner).where('title', '<>', owner),
    );
    await expect(twice(first.db, 'ada')).rejects.toThrow(/argument 0 is not exactly one parameter/);
    const unused = builtOnce((db: Kysely<Shelf>, _owner: string) => db.selectFrom('books').select('id'));
    await expect(unused(first.db, 'ada')).rejects.toThrow(/argument 0 is not exactly one parameter/);
  });
});
