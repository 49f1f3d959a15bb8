/**
 * Which list_changed notifications one catalog event means for a stream (legacy GET stream,
 * modern listen stream), by what it changed (`lists`) and what the stream may hear: a prompts
 * change is also a change of the tools mirror, a skills change one of the skill resources.
 */
import type { CatalogEvent } from './events.js';

export const PROMPTS_CHANGED = 'notifications/prompts/list_changed';
export const TOOLS_CHANGED = 'notifications/tools/list_changed';
export const RESOURCES_CHANGED = 'notifications/resources/list_changed';

/** What a stream announces: prompts (always, on a legacy stream), the mirror's tools, skill resources. */
export interface Announced {
  readonly prompts: boolean;
  readonly tools: boolean;
  readonly resources: boolean;
}

/**
 * The notification methods for one event, in a fixed order; `undefined` (a change whose lists are
 * not known, such as one missed while a listen stream reconnected) means every list the stream announces.
 */
export function changedMethods(event: CatalogEvent | undefined, a: Announced): string[] {
  const lists = event ? (event.lists ?? ['prompts']) : ['prompts', 'skills'];
  const out: string[] = [];
  if (lists.includes('prompts')) {
    if (a.prompts) out.push(PROMPTS_CHANGED);
    if (a.tools) out.push(TOOLS_CHANGED);
  }
  if (lists.includes('skills') && a.resources) out.push(RESOURCES_CHANGED);
  return out;
}
