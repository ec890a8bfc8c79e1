/**
 * A user or session id as a label that is safe everywhere it is used: a directory name, a LangGraph store
 * namespace label (no `.` or `:`) and PostgreSQL `LIKE` prefixes (no `%` or `_`). Letters, digits and `-` stay as
 * they are; every other UTF-8 byte becomes `~xx`, so the mapping is one-to-one and two ids never share a label.
 */
export function safeLabel(id: string): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) {
    throw new Error(
      `标识必须是 1–200 个字符的字符串 / an id must be a string of 1–200 characters: ${JSON.stringify(id)}`,
    );
  }
  let label = '';
  for (const char of id) {
    if (/^[A-Za-z0-9-]$/.test(char)) label += char;
    else for (const byte of new TextEncoder().encode(char)) label += `~${byte.toString(16).padStart(2, '0')}`;
  }
  return label;
}
