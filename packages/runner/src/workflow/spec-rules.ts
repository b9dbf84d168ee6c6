// The fingerprint of the workflow spec's validation rules this build has: a hash of the source
// of workflow-spec.ts and of every module it imports, taken when the build was made
// (scripts/spec-rules.mjs, injected as `__CONCLAVE_SPEC_RULES__`; vitest injects it too). A
// spec validated under these rules is journaled with it; a resume takes that validated spec
// only when the fingerprints are equal. Code run from source without the injection (no
// fingerprint) records no validated spec and trusts none.
declare const __CONCLAVE_SPEC_RULES__: string | undefined;

export const SPEC_RULES: string | null = typeof __CONCLAVE_SPEC_RULES__ === 'string' ? __CONCLAVE_SPEC_RULES__ : null;
