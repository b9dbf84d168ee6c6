// pnpm hooks. `beforePacking` shapes the package.json that goes into a published tarball
// (`pnpm pack`, `pnpm publish`) without touching the one in the repository.
'use strict';

/** Export conditions that only make sense inside this repository (they point at `src/`). */
const SOURCE_CONDITION = '@resume/source';

function withoutSourceCondition(target) {
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return target;
  const result = {};
  for (const [key, value] of Object.entries(target)) {
    if (key !== SOURCE_CONDITION) result[key] = withoutSourceCondition(value);
  }
  return result;
}

module.exports = {
  hooks: {
    beforePacking(manifest) {
      // The build scripts run the repository's build (`../../scripts/...`): meaningless, and
      // broken, outside it. The tarball ships the built `dist/`.
      delete manifest.scripts;
      if (manifest.exports) manifest.exports = withoutSourceCondition(manifest.exports);
      return manifest;
    },
  },
};
