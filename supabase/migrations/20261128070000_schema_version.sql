/*
  The newest migration applied to this database, as the Supabase CLI records them
  (`supabase_migrations.schema_migrations`, written by `supabase db push`), so the app can
  tell a database behind or ahead of the code it runs (docs/operations.md, "Migrate").
  Null when the table is not there: a database migrated some other way.

  Grants as tests/db/privileges.test.ts expects: the server only.
*/
create function public.schema_version() returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select max(version) from supabase_migrations.schema_migrations);
exception when undefined_table or invalid_schema_name then
  return null;
end
$$;

revoke execute on function public.schema_version() from public, anon, authenticated;
grant execute on function public.schema_version() to service_role;
