// Types of scripts/generate-checks.mjs, for the tests that compare the generated modules with it.
export declare const generatedModules: { file: string; fill?: boolean; checks: Record<string, [string, string]> }[];
export declare function checksModule(
  schemas: Record<string, { toJSONSchema(options: object): object }>,
  options?: { fill?: boolean },
): string;
export declare function checksDeclarations(names: string[]): string;
