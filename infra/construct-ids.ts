/** `get-person` → `GetPerson`: construct ids (and so logical ids) named after the handler. */
export const constructIdOf = (handler: string) =>
  handler.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());
