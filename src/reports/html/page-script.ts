import { CHARTS_SCRIPT } from './script-charts.ts'
import { DOM_SCRIPT } from './script-dom.ts'
import { MAIN_SCRIPT } from './script-main.ts'
import { TABLE_SCRIPT } from './script-table.ts'
import { TIMELINE_SCRIPT } from './script-timeline.ts'

/**
 * The page's one inline script. Its parts share one function scope; the main part runs last, when the others'
 * functions exist. Kept ASCII (non-ASCII text is written as \u escapes) so its CSP hash cannot depend on how the
 * file's bytes are decoded.
 */
export const PAGE_SCRIPT = [
  '(function () {',
  "'use strict';",
  DOM_SCRIPT,
  TABLE_SCRIPT,
  CHARTS_SCRIPT,
  TIMELINE_SCRIPT,
  MAIN_SCRIPT,
  '})();',
].join('\n')
