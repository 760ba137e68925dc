import { NotFoundError } from '../shared/errors';
import type { Actor } from '../auth/actor';
import { type Application, isApplicationExpired } from './application';
import type { ApplicationDeps } from './create-application';

export const applicationNotFound = (): NotFoundError => new NotFoundError('application');

/** Loads a live application of the caller's tenant; absent, expired and foreign ones are all "not found". */
export async function loadApplication(deps: ApplicationDeps, actor: Actor, id: string): Promise<Application> {
  const application = await deps.applications.findById(actor.tenantId, id);
  if (!application || isApplicationExpired(application, deps.clock.now())) throw applicationNotFound();
  return application;
}
