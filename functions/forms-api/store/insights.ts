// The statistics insights read.
import type { Db } from "../../../shared/db.ts";

export interface PlatformStats {
  platform: string;
  total_visits: number;
  unique_visits: number;
  responses_count: number;
  average_time: number;
}

/** The admin statistics of one form: per platform, overall, and per slide (views, dropoffs). */
export async function formStatistics(db: Db, form: string) {
  const [platforms, [overall], slides] = await Promise.all([
    db<PlatformStats[]>`
      select platform, total_visits::int, unique_visits::int, responses_count::int, average_time::float8
      from public.form_statistics where form = ${form} order by platform`,
    db<PlatformStats[]>`
      select count(*)::int as total_visits, count(distinct nullif(network_id, ''))::int as unique_visits,
             count(submitted_at)::int as responses_count,
             coalesce(avg(extract(epoch from submitted_at - landed_at)) filter (where submitted_at is not null), 0)::float8
               as average_time
      from public.form_responses where form = ${form}`,
    db<{ slide: string; views: number; dropoffs: number }[]>`
      select s.slide, count(*)::int as views,
             count(*) filter (where r.last_slide = s.slide and r.submitted_at is null)::int as dropoffs
      from public.form_responses r, unnest(r.seen) as s(slide)
      where r.form = ${form}
      group by s.slide`,
  ]);
  return { platforms, overall, slides };
}
