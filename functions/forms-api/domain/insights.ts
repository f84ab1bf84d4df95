// The insights summary: views and dropoffs per field (from the slides responses reached), and visits,
// responses, completion rate and average time per platform and overall (from the admin statistics).
import type { FormCore } from "./definition.ts";

export interface Stats {
  total_visits: number;
  unique_visits: number;
  responses_count: number;
  average_time: number;
}

function summary(s: Stats) {
  return {
    responses_count: s.responses_count,
    total_visits: s.total_visits,
    unique_visits: s.unique_visits,
    // percent of visits that completed, one decimal
    completion_rate: s.total_visits ? Math.round((s.responses_count / s.total_visits) * 1000) / 10 : 0,
    // seconds from landing to submission, on average over completed responses
    average_time: Math.round(s.average_time),
  };
}

export function insightsSummary(
  core: FormCore,
  stats: {
    platforms: (Stats & { platform: string })[];
    overall: Stats;
    slides: { slide: string; views: number; dropoffs: number }[];
  },
) {
  const bySlide = new Map(stats.slides.map((s) => [s.slide, s]));
  const fields = core.fields.flatMap((group) =>
    group.properties.fields.map((f) => {
      const s = bySlide.get(group.ref);
      return {
        id: f.id,
        ref: f.ref,
        title: f.title,
        type: f.type,
        views: s?.views ?? 0,
        dropoffs: s?.dropoffs ?? 0,
      };
    })
  );
  return {
    fields,
    form: {
      platforms: stats.platforms.map((p) => ({ platform: p.platform, ...summary(p) })),
      summary: summary(stats.overall),
    },
  };
}
