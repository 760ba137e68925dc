import { isApplicationType, permissionCatalogue, ValidationError } from '@svc/core';
import type { IRouter, RequestHandler } from 'express';
import { z } from 'zod';
import { sendJson } from '../respond';
import { validate } from '../validate';

export const listPermissionsQuery = z.strictObject({ application_type: z.string().optional() });

/** GET /permissions: the permission catalogue (any valid key), optionally for one application type. */
export function permissionRoutes(router: IRouter, auth: RequestHandler): void {
  router.get('/permissions', auth, (req, res) => {
    const { application_type: type } = validate(listPermissionsQuery, req.query);
    if (type !== undefined && !isApplicationType(type)) {
      throw ValidationError.field('application_type', 'Must be private, public or management.');
    }
    const catalogue = permissionCatalogue(type);
    sendJson(
      res,
      200,
      catalogue.map((entry) => ({ type: entry.type, description: entry.description, application_types: entry.applicationTypes })),
    );
  });
}
