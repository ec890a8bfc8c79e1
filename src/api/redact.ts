/**
 * Secret shapes that must never reach an event, a log or the history: API tokens, demo sign-in sessions (`pds_`,
 * which stand for a user's token), bearer headers, provider keys.
 */
const SECRET_PATTERNS = [
  /\bpk_[A-Za-z0-9_-]{16,}/g,
  /\bpds_[A-Za-z0-9_-]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
];

/** Text with the given secrets and anything shaped like a token replaced by `[redacted]` (JSON stays valid). */
export function redact(text: string, secrets: string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]');
  return out;
}

/** A JSON value with its strings redacted as {@link redact} does. */
export function redactValue<T>(value: T, secrets: string[] = []): T {
  return JSON.parse(redact(JSON.stringify(value), secrets)) as T;
}
