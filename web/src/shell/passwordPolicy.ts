// passwordPolicy — the server's password-policy messages (core's
// cube_password_policy: "password must be at least 8 characters", "... at
// most 1024 characters", "... not one character repeated") in the viewer's
// language. A message the console does not know is shown as the server wrote
// it, its first letter capitalised.
import type { TFunction } from '../i18n';
import './messages';

const KNOWN: [RegExp, string][] = [
  [/must be at least (\d+) characters/, 'password.policy.min'],
  [/must be at most (\d+) characters/, 'password.policy.max'],
  [/must not be one character repeated/, 'password.policy.repeated'],
  [/is required/, 'password.policy.required'],
];

/** `message` (a 422's, "password: ..." or bare) as the viewer reads it. */
export function passwordPolicyMessage(t: TFunction, message: string): string {
  for (const [re, key] of KNOWN) {
    const m = re.exec(message);
    if (m) return t(key, { n: m[1] ?? '' });
  }
  const bare = message.replace(/^password: /, '');
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}
