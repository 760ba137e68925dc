import type { IRouter, RequestHandler } from 'express';
import { type ApplicationWithKey, type CreatedApplication, type IssuedApplicationKey, isUuid, NotFoundError, ValidationError } from '@svc/core';
import type { ApplicationUseCases } from '../../container';
import { actorOf, requires } from '../authenticate';
import { presentApplication } from '../presenters/application.presenter';
import { presentApplicationKey } from '../presenters/application-key.presenter';
import { presentPage } from '../presenters/pagination';
import {
  createApplicationSchema,
  listApplicationKeysQuery,
  listApplicationsQuery,
  updateApplicationSchema,
} from '../schemas/application.schemas';
import { sendJson } from '../respond';
import { keepWithWrite } from '../idempotency';
import { emptyBody } from '../schemas/common';
import { validate } from '../validate';

/** Path ids that are not UUIDs can name no application: answer as absent. */
function applicationId(raw: string | string[] | undefined): string {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new NotFoundError('application');
  return raw.toLowerCase();
}

/** Likewise for a key id. */
function keyId(raw: string | string[] | undefined): string {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new NotFoundError('application key');
  return raw.toLowerCase();
}

export function applicationRoutes(router: IRouter, auth: RequestHandler, useCases: ApplicationUseCases, json: RequestHandler): void {
  router.post('/applications', auth, requires('application:create'), json, async (req, res) => {
    const body = validate(createApplicationSchema, req.body);
    const present = ({ application, key }: CreatedApplication) => presentApplication(application, key);
    const created = await useCases.create.execute(
      actorOf(res),
      { name: body.name, type: body.type, permissions: body.permissions, rules: body.rules, expiresAt: body.expires_at, createKey: body.create_key },
      keepWithWrite(res, 201, present),
    );
    sendJson(res, 201, present(created));
  });

  router.get('/applications', auth, requires('application:read'), async (req, res) => {
    const query = validate(listApplicationsQuery, req.query);
    query.id?.forEach((id, i) => {
      if (!isUuid(id)) throw ValidationError.field(`id[${i}]`, 'Must be a UUID.');
    });
    const page = await useCases.list.execute(actorOf(res), {
      ids: query.id?.map((id) => id.toLowerCase()),
      types: query.type,
      page: query.page,
      size: query.size,
    });
    sendJson(res, 200, presentPage(page, (app) => presentApplication(app)));
  });

  router.get('/applications/key', auth, async (_req, res) => {
    sendJson(res, 200, presentApplication(await useCases.getByKey.execute(actorOf(res))));
  });

  router.get('/applications/:id', auth, async (req, res) => {
    sendJson(res, 200, presentApplication(await useCases.get.execute(actorOf(res), applicationId(req.params.id))));
  });

  router.put('/applications/:id', auth, requires('application:update'), json, async (req, res) => {
    const id = applicationId(req.params.id);
    const body = validate(updateApplicationSchema, req.body);
    sendJson(res, 200, presentApplication(await useCases.update.execute(actorOf(res), id, body, keepWithWrite(res, 200, presentApplication))));
  });

  router.post('/applications/:id/regenerate', auth, requires('application:update'), json, async (req, res) => {
    validate(emptyBody, req.body);
    const present = ({ application, key }: ApplicationWithKey) => presentApplication(application, key);
    sendJson(res, 200, present(await useCases.regenerate.execute(actorOf(res), applicationId(req.params.id), keepWithWrite(res, 200, present))));
  });

  router.delete('/applications/:id', auth, async (req, res) => {
    await useCases.remove.execute(actorOf(res), applicationId(req.params.id));
    res.status(204).end();
  });

  applicationKeyRoutes(router, auth, useCases, json);
}

/** Several keys per application (beyond.md §3): add one, list and read them without their values, revoke one. */
function applicationKeyRoutes(router: IRouter, auth: RequestHandler, useCases: ApplicationUseCases, json: RequestHandler): void {
  router.post('/applications/:id/keys', auth, requires('application:update'), json, async (req, res) => {
    validate(emptyBody, req.body);
    const present = ({ key, plaintext }: IssuedApplicationKey) => presentApplicationKey(key, plaintext);
    sendJson(res, 201, present(await useCases.createKey.execute(actorOf(res), applicationId(req.params.id), keepWithWrite(res, 201, present))));
  });

  router.get('/applications/:id/keys', auth, requires('application:read'), async (req, res) => {
    const id = applicationId(req.params.id);
    const query = validate(listApplicationKeysQuery, req.query);
    query.id?.forEach((keyId, i) => {
      if (!isUuid(keyId)) throw ValidationError.field(`id[${i}]`, 'Must be a UUID.');
    });
    const wanted = query.id && new Set(query.id.map((keyId) => keyId.toLowerCase()));
    const keys = await useCases.listKeys.execute(actorOf(res), id);
    sendJson(res, 200, keys.filter((key) => !wanted || wanted.has(key.id)).map((key) => presentApplicationKey(key)));
  });

  router.get('/applications/:id/keys/:key_id', auth, requires('application:read'), async (req, res) => {
    const key = await useCases.getKey.execute(actorOf(res), applicationId(req.params.id), keyId(req.params.key_id));
    sendJson(res, 200, presentApplicationKey(key));
  });

  router.delete('/applications/:id/keys/:key_id', auth, requires('application:update'), async (req, res) => {
    await useCases.deleteKey.execute(actorOf(res), applicationId(req.params.id), keyId(req.params.key_id));
    res.status(204).end();
  });
}
