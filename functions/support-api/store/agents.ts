// SQL of the desk's agents: people whose profile role is admin or support, known by their number.
import type { Db } from "../../../shared/db.ts";

export type AgentJson = Record<string, any>;

export interface KeyMaker {
  agentId: number | null;
  personId: string | null;
  role: string | null;
}

/** Who made the key, and their agent number and role (null when the key has no maker). */
export async function keyMaker(db: Db, keyId: string): Promise<KeyMaker> {
  const [row] = await db<{ agent_id: number | null; person_id: string | null; role: string | null }[]>`
    select a.id as agent_id, k.created_by as person_id, p.role
    from public.api_keys k
    left join public.profiles p on p.id = k.created_by
    left join public.support_agents a on a.person_id = k.created_by
    where k.id = ${keyId}`;
  return { agentId: row?.agent_id ?? null, personId: row?.person_id ?? null, role: row?.role ?? null };
}

/** Every agent of the desk, by number. */
export async function deskAgents(db: Db): Promise<AgentJson[]> {
  const rows = await db<{ json: AgentJson }[]>`
    select public.support_agent_json(a.id) as json
    from public.support_agents a join public.profiles p on p.id = a.person_id
    where p.role in ('admin', 'support') order by a.id`;
  return rows.map((r) => r.json);
}

/** The agent with that number when they are on the desk, else undefined. */
export async function deskAgent(db: Db, id: number): Promise<AgentJson | undefined> {
  const [row] = await db<{ json: AgentJson }[]>`
    select public.support_agent_json(a.id) as json
    from public.support_agents a join public.profiles p on p.id = a.person_id
    where a.id = ${id} and p.role in ('admin', 'support')`;
  return row?.json;
}

/** The agent number of a host by their address, when they are on the desk. */
export async function deskAgentByEmail(db: Db, email: string): Promise<number | undefined> {
  const [row] = await db<{ id: number }[]>`
    select a.id from public.support_agents a join public.profiles p on p.id = a.person_id
    where lower(p.email) = lower(${email}) and p.role in ('admin', 'support') order by a.id limit 1`;
  return row?.id;
}
