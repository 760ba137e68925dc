import { z } from 'zod';
import { optional, pagingQuery, repeated } from './common';

export const listMembersQuery = z.strictObject({ user_id: repeated, ...pagingQuery });
export const listInvitationsQuery = z.strictObject({ status: z.string().optional(), ...pagingQuery });
/** `role`: the Basis Theory SDK may send it; an invitation makes an ADMIN member (the OWNER is the tenant's maker). */
export const createInvitationSchema = z.strictObject({
  email: z.string(),
  role: optional(z.literal('ADMIN', { error: 'An invitation makes an ADMIN member; OWNER is only the tenant\'s first member.' })),
});
export const acceptInvitationSchema = z.strictObject({
  token: z.string().min(1, 'The token is required.'),
  first_name: optional(z.string()),
  last_name: optional(z.string()),
});
