import { z } from 'zod';

/** Console passwords: 12 to 256 characters (beyond-the-seed §7); long passphrases welcome, nothing else imposed. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** A password as typed into a form that sets one: its length judged, never trimmed (spaces count). */
export const newPasswordSchema = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`);

/** A password typed to sign in: anything longer than any password we accept is refused unhashed. */
export const isPlausiblePassword = (password: string) => password.length > 0 && password.length <= PASSWORD_MAX;
