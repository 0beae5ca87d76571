import { sql, type Compilable, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';

type Built<O> = { compiled: CompiledQuery<O>; slots: Array<number | undefined> };

/**
 * A query of a fixed shape that kysely builds and compiles once per database handle, then runs
 * with each call's values as its parameters. Building a query through kysely's immutable nodes
 * cost more CPU than anything else in a request that ran one (the device list: 7% of the process
 * under load, issue #24); the SQL it makes is the same every time.
 *
 * `build` receives stand-in strings for its arguments, so each argument must be one scalar value
 * that lands in exactly one parameter (a `where x = value`), never something that changes the
 * query's shape (an array spread into `in (…)`, a column name, an optional clause): the first
 * call checks that every argument became exactly one parameter and throws otherwise.
 */
export function builtOnce<DB, A extends readonly unknown[], O>(
  build: (db: Kysely<DB>, ...args: A) => Compilable<O>,
): (db: Kysely<DB>, ...args: A) => Promise<O[]> {
  const byDatabase = new WeakMap<object, Built<O>>();
  return async (db, ...args) => {
    let built = byDatabase.get(db);
    if (!built) {
      const standIns = args.map((_, index) => `\u0000qw-value-${index}\u0000`) as unknown as A;
      const compiled = build(db, ...standIns).compile();
      const slots = compiled.parameters.map((value) => {
        const index = standIns.indexOf(value as string);
        return index < 0 ? undefined : index;
      });
      for (let index = 0; index < args.length; index++)
        if (slots.filter((slot) => slot === index).length !== 1)
          throw new Error(`builtOnce: argument ${index} is not exactly one parameter of the query`);
      built = { compiled, slots };
      byDatabase.set(db, built);
    }
    const { compiled, slots } = built;
    const parameters = compiled.parameters.map((value, position) => {
      const slot = slots[position];
      return slot === undefined ? value : args[slot];
    });
    return (await db.executeQuery<O>({ ...compiled, parameters })).rows;
  };
}

/** The most shapes one `builtPerShape` query keeps built; past it, it forgets them all and starts again. */
const shapesKept = 1000;

/**
 * A query whose shape depends on a few choices (which filters apply, the sort column and
 * direction, a page's bounds): one `builtOnce` query per shape, each built the first time its
 * shape is asked. `shape` holds only those choices (a small plain object, compared as its JSON),
 * never a caller's value other than a page's bounds (`pageLiterals`); every value goes in
 * `values`, each exactly one parameter, as for `builtOnce`. The operator console's device list
 * has a handful of shapes in use and built its query anew for every page (8% of the route's CPU
 * under load, issue #24). At most a thousand shapes are kept built.
 */
export function builtPerShape<DB, S, O>(
  build: (db: Kysely<DB>, shape: S, ...values: unknown[]) => Compilable<O>,
): (db: Kysely<DB>, shape: S, ...values: unknown[]) => Promise<O[]> {
  const byShape = new Map<string, (db: Kysely<DB>, ...values: unknown[]) => Promise<O[]>>();
  return (db, shape, ...values) => {
    const key = JSON.stringify(shape);
    let query = byShape.get(key);
    if (!query) {
      if (byShape.size >= shapesKept) byShape.clear();
      query = builtOnce((handle: Kysely<DB>, ...standIns: unknown[]) => build(handle, shape, ...standIns));
      byShape.set(key, query);
    }
    return query(db, ...values);
  };
}

/** Which rows of a list a page holds. */
export type PageBounds = { limit: number; offset: number };

/**
 * A page's limit and offset written into the statement's text, for a `builtPerShape` shape that
 * holds them: each page is then a statement of its own. Postgres cannot tell how many rows a
 * parameter's `LIMIT $1 OFFSET $2` keeps, guesses a tenth of them, and so never found the generic
 * plan of a paged statement cheaper than one made for the values: it planned the organization's
 * page and the console's list again on every request, a quarter to a third of the Postgres CPU
 * they cost (issue #24). With the bounds in the text, a prepared page is planned a few times,
 * then its plan is kept. Only whole numbers from 0 are written; anything else throws.
 */
export function pageLiterals(page: PageBounds): { limit: RawBuilder<number>; offset: RawBuilder<number> } {
  for (const bound of [page.limit, page.offset])
    if (!Number.isSafeInteger(bound) || bound < 0)
      throw new Error(`pageLiterals: ${String(bound)} is not a page bound`);
  return { limit: sql.lit(page.limit), offset: sql.lit(page.offset) };
}
