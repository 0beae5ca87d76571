import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { type Kysely, sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import { connectDatabase, prepareRepeatedStatements, type Database } from '../src/db/index.ts';

type Shelf = { books: { id: number; owner: string; title: string } };

let database: TestDatabase;
let url: string;
const opened: Array<Database<Shelf>> = [];

/** A pool of one connection, so every statement lands where pg_prepared_statements is read. */
function oneConnection(preparedStatements = true): Database<Shelf> {
  const handle = connectDatabase<Shelf>(url, 'shelf', 1, { preparedStatements });
  opened.push(handle);
  return handle;
}

/** The statements prepared on the connection, this question's own left out (asked twice, it is prepared too). */
async function preparedOn(db: Kysely<Shelf>): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db);
  return rows.map((row) => row.statement).filter((statement) => !statement.includes('pg_prepared_statements'));
}

const byOwner = (db: Kysely<Shelf>, owner: string) =>
  db.selectFrom('books').select(['id', 'title']).where('owner', '=', owner).orderBy('id').execute();

beforeAll(async () => {
  database = await createTestDatabase('prepared');
  url = await database.provision('shelf');
  const setup = oneConnection(false);
  await sql`create table books (id int primary key, owner text not null, title text not null)`.execute(setup.db);
  await sql`insert into books values (1, 'ada', 'Notes'), (2, 'ada', 'Sketches'), (3, 'bob', 'Letters')`.execute(
    setup.db,
  );
});

afterAll(async () => {
  for (const handle of opened) await handle.db.destroy();
  await database?.drop();
});

describe('repeated statements, prepared', () => {
  it('prepares a statement the second time it is sent and answers as before; a one-off is never prepared', async () => {
    const { db } = oneConnection();
    expect(await byOwner(db, 'ada')).toEqual([
      { id: 1, title: 'Notes' },
      { id: 2, title: 'Sketches' },
    ]);
    expect(await preparedOn(db)).toEqual([]);
    expect(await byOwner(db, 'bob')).toEqual([{ id: 3, title: 'Letters' }]);
    const sqlText = db.selectFrom('books').select(['id', 'title']).where('owner', '=', 'x').orderBy('id').compile().sql;
    expect(await preparedOn(db)).toEqual([sqlText]);
    // Used again with other values: the same statement, still one.
    expect(await byOwner(db, 'eve')).toEqual([]);
    expect(await byOwner(db, 'ada')).toHaveLength(2);
    await db.selectFrom('books').select('id').where('id', '=', 3).execute();
    expect(await preparedOn(db)).toEqual([sqlText]);
  });

  it('prepares a single select without values too; several statements in one text still run as one query', async () => {
    const { db } = oneConnection();
    const count = () =>
      db
        .selectFrom('books')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .execute();
    expect(await count()).toEqual([{ n: '3' }]);
    expect(await count()).toEqual([{ n: '3' }]);
    expect(await preparedOn(db)).toEqual([
      db
        .selectFrom('books')
        .select((eb) => eb.fn.countAll().as('n'))
        .compile().sql,
    ]);
    // Only the simple protocol takes two statements in one text (a migration's): never named.
    const twice = sql.raw('select 1 as one; select 2 as two');
    for (let round = 0; round < 3; round++) await twice.execute(db);
    expect(await preparedOn(db)).toHaveLength(1);
  });

  it('prepares nothing when turned off (behind a pooler in transaction mode)', async () => {
    const { db } = oneConnection(false);
    for (const owner of ['ada', 'bob', 'ada', 'eve']) await byOwner(db, owner);
    expect(await preparedOn(db)).toEqual([]);
  });

  it('prepares at most the limit of statements on one connection; the rest run unnamed', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1, options: '-c search_path=shelf' });
    prepareRepeatedStatements(pool, { perConnection: 2, texts: 100 });
    try {
      const texts = [1, 2, 3].map((n) => `select title from books where id = $1 and ${n} = ${n}`);
      const client = await pool.connect();
      try {
        for (let round = 0; round < 3; round++)
          for (const text of texts) expect((await client.query(text, [1])).rows).toEqual([{ title: 'Notes' }]);
        const { rows } = await client.query('select statement from pg_prepared_statements order by statement');
        expect(rows.map((row: { statement: string }) => row.statement)).toEqual(texts.slice(0, 2));
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('a table changed under a prepared statement: sent again unnamed outside a transaction; inside, the transaction fails once', async () => {
    const { db } = oneConnection();
    await sql`create table shelves (id int primary key, label text not null)`.execute(db);
    await sql`insert into shelves values (1, 'top')`.execute(db);
    const shelf = (handle: Kysely<Shelf>) =>
      sql<Record<string, unknown>>`select * from shelves where id = ${1}`.execute(handle);
    await shelf(db);
    await shelf(db);
    expect(await preparedOn(db)).toHaveLength(1);

    await sql`alter table shelves add column colour text`.execute(db);
    // Postgres refuses the prepared statement ("cached plan must not change result type"); the
    // caller sees the new columns.
    expect((await shelf(db)).rows).toEqual([{ id: 1, label: 'top', colour: null }]);
    // Named anew from then on: prepared again on its second send.
    await shelf(db);
    await shelf(db);
    expect(await preparedOn(db)).toHaveLength(2);

    await sql`alter table shelves add column width int`.execute(db);
    await expect(db.transaction().execute((tx) => shelf(tx))).rejects.toMatchObject({ code: '0A000' });
    const next = await db.transaction().execute((tx) => shelf(tx));
    expect(next.rows).toEqual([{ id: 1, label: 'top', colour: null, width: null }]);
  });
});
