import { ConclaveError, type ConclaveErrorOptions } from '@resume/core/spec';

/**
 * A map step with `require_items: true` found no items. Its empty list is not journaled, so
 * a resume once the items exist lists them again.
 */
export class MapNoItemsError extends ConclaveError {
  static override readonly code = 'map-no-items';
  readonly stepId: string;
  constructor(input: { stepId: string; key: string }, options: ConclaveErrorOptions = {}) {
    super(
      MapNoItemsError.code,
      `Map step ${input.stepId} had no items, and it has require_items: true (${input.key}.require_items).`,
      {
        hint: `Check where ${input.key}.items finds them, then resume the run: the items are listed again. Without require_items an empty list passes with a notice.`,
        ...options,
      },
    );
    this.name = 'MapNoItemsError';
    this.stepId = input.stepId;
  }
}
