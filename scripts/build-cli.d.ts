// The types of build-cli.js, for the TypeScript that builds or runs the compiled CLI (the tests' started stack).
/** The compiled entry (`<build>/main.js`) when dist/ holds a build of the current sources, else undefined. */
export declare function freshEntry(): string | undefined;
/** Builds dist/ unless it is up to date; the compiled entry (`<build>/main.js`). */
export declare function buildCli(options?: { quiet?: boolean }): Promise<string>;
