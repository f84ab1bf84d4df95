-- The projection's functions are planned once per session: their statements look rows up by key
-- (migration network_projection_by_key), which a generic plan does as well as any, but the plan cache
-- judged the generic plans of the lookups over unnest(<array>) dearer than plans made for each call's
-- arrays and so planned them anew on every call, in every write (about a tenth of the database's time
-- per commit in the federation bench).
alter function public.network_table_records(uuid, text[]) set plan_cache_mode = force_generic_plan;
alter function public.network_projection_inputs(uuid, boolean, text[]) set plan_cache_mode = force_generic_plan;
alter function public.network_keep_commit(uuid, text, text, text, text[], bytea, integer[], text[], text[], text[], text, text, bytea, timestamptz)
  set plan_cache_mode = force_generic_plan;
