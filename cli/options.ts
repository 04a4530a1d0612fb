// Option parsers shared by the commands.

/** A repeatable option: every occurrence is kept, in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
