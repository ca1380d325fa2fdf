import { PGlite } from '@electric-sql/pglite';
const db = await PGlite.create();
await db.exec(`create role anon nologin noinherit; create role authenticated nologin noinherit; create role service_role nologin noinherit bypassrls;
create table t (id int, uid text); alter table t enable row level security;
grant all on t to anon, authenticated, service_role;
create policy p on t for select to authenticated using (uid = current_setting('request.jwt.claims', true)::jsonb->>'sub');
insert into t values (1,'a'),(2,'b');`);
const r = await db.transaction(async (tx) => {
  await tx.query(`select set_config('role','authenticated',true), set_config('request.jwt.claims', $1, true)`, [JSON.stringify({sub:'a'})]);
  return tx.query('select * from t');
});
console.log(r.rows);
const r2 = await db.transaction(async (tx) => { await tx.query(`set local role service_role`); return tx.query('select * from t'); });
console.log(r2.rows);
const c = await db.clone?.(); console.log('clone', typeof db.clone, typeof db.dumpDataDir);
