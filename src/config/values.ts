/** Value schemas that settings of several areas share. */
import * as z from 'zod';

export const positiveInt = () => z.number().int().positive();

export const httpUrl = () =>
  z
    .string()
    .refine((s) => /^https?:\/\/[^/]+/.test(s) && URL.canParse(s), 'must be an absolute http(s) URL')
    .transform((s) => s.replace(/\/+$/, ''));

