// How many items a map step may run at once: a spec's `parallel:` is refused above the
// configured limit (`limits.maxParallel`), which itself is at most MAX_MAP_PARALLEL.

/** The most items a map step may run at once, whatever the config says. */
export const MAX_MAP_PARALLEL = 256;
/** `limits.maxParallel` when the config sets none. */
export const DEFAULT_MAX_PARALLEL = 16;
