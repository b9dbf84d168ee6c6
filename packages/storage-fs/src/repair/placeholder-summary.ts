// The summary a listing shows for a session whose journal has none to give: shared with
// the other stores, from core.
export { summaryFromHeader } from '@resume/core/spec';
