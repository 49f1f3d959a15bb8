/** @jsxImportSource hono/jsx */
/**
 * The index's health section: the catalog's generation and the upstream servers' table. The page
 * around it is cached per catalog generation (routes/web-cache.ts), health is not: the table's rows
 * are spliced in per request at HEALTH_SLOT.
 */
import { raw } from 'hono/html';
import { ColumnHeads, When } from './layout.js';
import type { HealthRow, IndexData } from './types.js';

export const HEALTH_SLOT = '<!--pg:health-->';

/** The upstream rows of the health table, rendered per request; 'unknown' and 'restricted' as /status says them. */
export function HealthRows({ rows }: { rows: HealthRow[] | 'unknown' | 'restricted' }) {
  if (rows === 'restricted')
    return (
      <tr data-state="restricted">
        <td colspan={4}>Sign in to see the upstream servers' health.</td>
      </tr>
    );
  if (rows === 'unknown')
    return (
      <tr data-state="unknown">
        <td colspan={4}>Upstream health is unknown: the catalog writer did not answer. Try again shortly.</td>
      </tr>
    );
  if (!rows.length)
    return (
      <tr>
        <td colspan={4}>No upstream servers are configured.</td>
      </tr>
    );
  return (
    <>
      {rows.map((u) => (
        <tr data-upstream={u.id} data-state={u.state}>
          <th scope="row">{u.id}</th>
          <td>
            <span class={`state state-${u.state}`}>{u.state.replace('_', ' ')}</span>
            {u.fault ? ` (${u.fault})` : ''}
          </td>
          <td>{u.prompts}</td>
          <td>{u.lastSuccess ? <When iso={u.lastSuccess} /> : 'never'}</td>
        </tr>
      ))}
    </>
  );
}

export function Health({ d }: { d: IndexData }) {
  return (
    <section id="health" data-generation={d.generation} aria-labelledby="health-h">
      <h2 id="health-h">Health</h2>
      <p>
        Catalog generation <code>{d.generation}</code>, published <When iso={d.updatedAt} id="published" />.
      </p>
      <table>
        <caption>Upstream servers</caption>
        <ColumnHeads names={['Upstream', 'State', 'Prompts', 'Last listed']} />
        <tbody>{raw(HEALTH_SLOT)}</tbody>
      </table>
    </section>
  );
}
