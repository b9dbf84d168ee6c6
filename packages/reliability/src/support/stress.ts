// How big the suites run: CI-sized by default, full size with CONCLAVE_STRESS=1
// (`pnpm test:stress`). The figures each suite reached are printed by the suite.
export const isStress = process.env.CONCLAVE_STRESS === '1';

/** `ci` in a normal run, `stress` under CONCLAVE_STRESS=1. */
export function sized(ci: number, stress: number): number {
  return isStress ? stress : ci;
}

/** Timeout for a test whose size depends on the mode. */
export function sizedTimeout(ciMs: number, stressMs: number): number {
  return isStress ? stressMs : ciMs;
}
