import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kysely, sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import {
  builtOnce,
  builtPerShape,
  connectDatabase,
  pageLiterals,
  type Database,
  type PageBounds,
} from '../src/db/index.ts';

type Shelf = { books: { id: number; owner: string; title: string; shelf: string | null } };

let database: TestDatabase;
let first: Database<Shelf>;
let second: Database<Shelf>;
let url: string;

beforeAll(async () => {
  database = await createTestDatabase('built-once');
  url = await database.provision('shelf');
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

describe('a query built once per shape', () => {
  it('builds each shape once and runs every shape with its own values', async () => {
    const builds: string[] = [];
    const books = builtPerShape(
      (db: Kysely<Shelf>, shape: { shelved: boolean | null; order: 'asc' | 'desc' }, ...values) => {
        builds.push(JSON.stringify(shape));
        const [owner] = values as [string];
        let query = db.selectFrom('books').select('id').where('owner', '=', owner);
        if (shape.shelved !== null) query = query.where('shelf', shape.shelved ? 'is not' : 'is', null);
        return query.orderBy('id', shape.order);
      },
    );
    const ids = async (shape: { shelved: boolean | null; order: 'asc' | 'desc' }, owner: string) =>
      (await books(first.db, shape, owner)).map((row) => row.id);
    expect(await ids({ shelved: null, order: 'asc' }, 'ada')).toEqual([1, 2, 4]);
    expect(await ids({ shelved: null, order: 'desc' }, 'ada')).toEqual([4, 2, 1]);
    expect(await ids({ shelved: true, order: 'asc' }, 'ada')).toEqual([2]);
    expect(await ids({ shelved: false, order: 'asc' }, 'ada')).toEqual([1, 4]);
    expect(await ids({ shelved: false, order: 'asc' }, 'bob')).toEqual([3]);
    expect(await ids({ shelved: null, order: 'asc' }, 'bob')).toEqual([3]);
    // Four shapes, four builds: asking a shape again builds nothing.
    expect(builds).toHaveLength(4);
    expect(new Set(builds).size).toBe(4);
  });

  it('refuses a shape whose value does not land in exactly one parameter', async () => {
    const careless = builtPerShape((db: Kysely<Shelf>, shape: { byOwner: boolean }, ...values) =>
      shape.byOwner
        ? db
            .selectFrom('books')
            .select('id')
            .where('owner', '=', values[0] as string)
        : db.selectFrom('books').select('id'),
    );
    expect(await careless(first.db, { byOwner: true }, 'bob')).toEqual([{ id: 3 }]);
    await expect(careless(first.db, { byOwner: false }, 'bob')).rejects.toThrow(
      /argument 0 is not exactly one parameter/,
    );
  });
});

describe('a page written into the statement', () => {
  type Listing = { id: number; title: string };
  const pageByParameters = builtOnce((db: Kysely<Shelf>, owner: string, limit: number, offset: number) =>
    db.selectFrom('books').select(['id', 'title']).where('owner', '=', owner).orderBy('id').limit(limit).offset(offset),
  );
  const pageByLiterals = builtPerShape((db: Kysely<Shelf>, shape: { page: PageBounds }, ...values) => {
    const { limit, offset } = pageLiterals(shape.page);
    return db
      .selectFrom('books')
      .select(['id', 'title'])
      .where('owner', '=', values[0] as string)
      .orderBy('id')
      .limit(limit)
      .offset(offset);
  });

  it('reads each page as the parameters did', async () => {
    for (const owner of ['ada', 'bob'])
      for (const page of [
        { limit: 2, offset: 0 },
        { limit: 2, offset: 2 },
        { limit: 1, offset: 1 },
        { limit: 5, offset: 9 },
      ]) {
        const literal: Listing[] = await pageByLiterals(first.db, { page }, owner);
        expect(literal).toEqual(await pageByParameters(first.db, owner, page.limit, page.offset));
      }
    expect(await pageByLiterals(first.db, { page: { limit: 2, offset: 1 } }, 'ada')).toEqual([
      { id: 2, title: 'Sketches' },
      { id: 4, title: 'Tables' },
    ]);
  });

  it('writes only whole numbers from 0', async () => {
    for (const bound of [-1, 1.5, Number.NaN, 2 ** 60, '1; drop table books' as unknown as number])
      await expect(pageByLiterals(first.db, { page: { limit: bound, offset: 0 } }, 'ada')).rejects.toThrow(
        /is not a page bound/,
      );
    expect(() => pageLiterals({ limit: 10, offset: -10 })).toThrow(/is not a page bound/);
    expect(await first.db.selectFrom('books').select('id').execute()).toHaveLength(4);
  });

  it('lets Postgres keep its plan of a page; with the bounds as parameters it plans every run anew', async () => {
    // A table large enough that a tenth of it (Postgres's guess for a parameter's limit) makes the
    // generic plan look dearer; one connection, so every run lands on the statements that
    // pg_prepared_statements shows.
    type Ledger = { entries: { id: number; owner: string } };
    const alone = connectDatabase<Ledger>(url, 'shelf', 1);
    const entries = builtPerShape((db: Kysely<Ledger>, shape: { page: PageBounds | null }, ...values) => {
      const query = db
        .selectFrom('entries')
        .select('id')
        .where('owner', '=', values[0] as string)
        .orderBy('id', 'desc');
      if (!shape.page) return query.limit(values[1] as number).offset(values[2] as number);
      const { limit, offset } = pageLiterals(shape.page);
      return query.limit(limit).offset(offset);
    });
    try {
      await sql`create table entries (id int primary key, owner text not null)`.execute(alone.db);
      await sql`insert into entries select n, case when n % 10 = 0 then 'ada' else 'bob' end from generate_series(1, 2000) n`.execute(
        alone.db,
      );
      await sql`create index entries_owner on entries (owner, id)`.execute(alone.db);
      await sql`analyze entries`.execute(alone.db);
      for (let run = 0; run < 10; run++) {
        const byParameters = await entries(alone.db, { page: null }, 'bob', 50, 50);
        const byLiterals = await entries(alone.db, { page: { limit: 50, offset: 50 } }, 'bob');
        expect(byLiterals).toEqual(byParameters);
        expect(byLiterals).toHaveLength(50);
      }
      const { rows } = await sql<{ statement: string; generic_plans: string; custom_plans: string }>`
        select statement, generic_plans, custom_plans from pg_prepared_statements`.execute(alone.db);
      const literal = rows.find((row) => /limit 50 offset 50/i.test(row.statement));
      const parameters = rows.find((row) => /limit \$2 offset \$3/i.test(row.statement));
      expect(literal, JSON.stringify(rows)).toBeDefined();
      expect(parameters, JSON.stringify(rows)).toBeDefined();
      expect(Number(literal!.generic_plans)).toBeGreaterThan(0);
      expect(Number(parameters!.generic_plans)).toBe(0);
      expect(Number(parameters!.custom_plans)).toBeGreaterThan(5);
    } finally {
      await sql`drop table if exists entries`.execute(alone.db);
      await alone.db.destroy();
    }
  });
});
