// `@resume/runner/search`: the content index over a store's sessions, loaded only by the
// commands and screens that search.
export {
  type ContentField,
  type ContentHit,
  type ContentIndex,
  type ContentIndexUpdate,
  type KeptSummary,
  type OpenContentIndexOptions,
  openContentIndex,
  type SearchOptions,
} from './content-index.js';
export type { WordKey } from './keyed-words.js';
export { parseQuery, type SearchTerm, type TextMatch } from './search-text.js';
