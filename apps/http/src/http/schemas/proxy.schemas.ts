import { z } from 'zod';
import { optional, pagingQuery, repeated } from './common';

/**
 * A transform as svc takes it (`matcher`, `expression`, `replacement`, `name`, `value`, `token`), or as Basis
 * Theory's SDK sends it (`options.token`, `options.location` and `options.value`, `options.identifier`); the rules of
 * each kind are core's (proxy-transforms.ts). `code` is Basis Theory's reactor code, which svc never runs.
 */
const transformSchema = z.strictObject({
  type: z.string(),
  matcher: optional(z.string()),
  expression: optional(z.string()),
  replacement: optional(z.string()),
  name: optional(z.string()),
  value: optional(z.string()),
  token: optional(z.record(z.string(), z.unknown())),
  code: optional(z.string()),
  options: optional(
    z.strictObject({
      token: optional(z.record(z.string(), z.unknown())),
      identifier: optional(z.string()),
      location: optional(z.string()),
      value: optional(z.string()),
      runtime: optional(z.unknown()),
    }),
  ),
});

export type TransformBody = z.output<typeof transformSchema>;

/** Fields that may be `null` in a PATCH to clear them, and are left as given (null or absent) for the use case. */
const clearable = <T extends z.ZodType>(schema: T) => schema.nullish();

// More entries than a proxy may hold can only be refused; the bound keeps the work before that small.
const transforms = clearable(z.array(transformSchema).max(100, 'At most 100 transforms.'));

/** The body of POST, PUT and PATCH /proxies[/{id}]: every field optional here, required ones checked by core. */
export const proxySchema = z.strictObject({
  name: clearable(z.string()),
  destination_url: clearable(z.string()),
  request_transforms: transforms,
  response_transforms: transforms,
  // Basis Theory's single transform and reactors: refused with a reason when set (svc runs no code).
  request_transform: optional(transformSchema),
  response_transform: optional(transformSchema),
  request_reactor_id: optional(z.string()),
  response_reactor_id: optional(z.string()),
  application_id: clearable(z.string()),
  // Basis Theory's SDK names the application as an object.
  application: clearable(z.looseObject({ id: z.string() })),
  configuration: clearable(z.record(z.string(), z.string())),
  require_auth: clearable(z.boolean()),
  timeout: clearable(z.number()),
  disable_detokenization: clearable(z.boolean()),
});

export type ProxyBody = z.output<typeof proxySchema>;

export const listProxiesQuery = z.strictObject({ id: repeated, name: z.string().max(200).optional(), ...pagingQuery });
