import postgres from "postgres";
let bad = 0, ok = 0;
for (let round = 0; round < 40; round++) {
  const sql = postgres("postgres://postgres@127.0.0.1:5432/test", {
    max: 2,
    onnotice: () => {},
    connection: { synchronous_commit: "off" },
  });
  const qs = Array.from(
    { length: 3 },
    (_, i) =>
      sql`SELECT * FROM unnest(${["a" + round, "b" + i]}::text[], ${["1", "2"]}::bigint[]) AS c(x, y)`.then(
        () => ok++,
        (e) => {
          bad++;
          if (bad < 3) console.log(round, i, e.code, e.message);
        },
      ),
  );
  await Promise.all(qs);
  await sql.end();
}
console.log({ ok, bad });
