/**
 * Usage counting (docs/observability.md, "Usage"): placeholder seam, filled in by the usage work.
 */
import type { RequestScope } from '../lib/scope.js';
import type { Outcome } from '../lib/record.js';

export function countUsage(_scope: RequestScope, _outcome: Outcome): void {}
