import { z } from 'zod';

const API_KEY_NAME_MAX_LENGTH = 100;

/**
 * A key's label: 1–100 characters after trimming, counted as characters (code points) the way PostgreSQL's
 * char_length counts them. NUL is refused here because PostgreSQL text cannot hold it.
 */
export const apiKeyNameSchema = z
  .string()
  .trim()
  .min(1, 'Must not be empty.')
  .refine((name) => [...name].length <= API_KEY_NAME_MAX_LENGTH, `Must be at most ${API_KEY_NAME_MAX_LENGTH} characters.`)
  .refine((name) => !name.includes('\u0000'), 'Must not contain NUL characters.');
