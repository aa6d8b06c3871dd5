/**
 * What floor (b) (bench/servers/floor-db.ts) uses of better-sqlite3, which it loads from the bench's
 * pinned install (bench/floors), not from the project's dependencies: the project has no
 * better-sqlite3, nor its types.
 */
declare module 'better-sqlite3' {
  interface Statement {
    all(...values: unknown[]): unknown[];
    run(...values: unknown[]): unknown;
  }
  class Database {
    constructor(file: string);
    exec(sql: string): this;
    prepare(sql: string): Statement;
    close(): this;
  }
  export default Database;
}

declare module 'better-sqlite3/package.json' {
  const manifest: { version: string };
  export default manifest;
}
