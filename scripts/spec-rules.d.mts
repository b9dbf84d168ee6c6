/** The files and third-party packages (name@version) the workflow spec's validation is made of. */
export function specRulesSources(): { files: string[]; packages: string[] };
/** `sha256:<hex>` of the workflow spec's validation rules as the source has them. */
export function specRulesFingerprint(): string;
