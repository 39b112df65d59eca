import pg from "pg";

/** Runs statements on their own connection, as a database administrator would (roles, grants). */
export async function adminQuery(url: string, statements: string[]): Promise<pg.QueryResult[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const results: pg.QueryResult[] = [];
    for (const sql of statements) results.push(await client.query(sql));
    return results;
  } finally {
    await client.end();
  }
}
