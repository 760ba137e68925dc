import { z } from 'zod';
import { optional, pagingQuery, repeated } from './common';

export const listMembersQuery = z.strictObject({ user_id: repeated, ...pagingQuery });
export const listInvitationsQuery = z.strictObject({ status: z.string().optional(), ...pagingQuery });
export const createInvitationSchema = z.strictObject({ email: z.string() });
export const acceptInvitationSchema = z.strictObject({
  token: z.string().min(1, 'The token is required.'),
  first_name: optional(z.string()),
  last_name: optional(z.string()),
});
