import { WEBHOOK_EVENT_TYPES } from '@svc/core';
import type { z } from 'zod';
import { listLogsQuery } from '../routes/log.routes';
import { listPermissionsQuery } from '../routes/permission.routes';
import { createApplicationSchema, listApplicationsQuery, ruleSchema, updateApplicationSchema } from '../schemas/application.schemas';
import { emptyBody } from '../schemas/common';
import { listProxiesQuery, proxySchema } from '../schemas/proxy.schemas';
import { authorizeSessionSchema } from '../schemas/session.schemas';
import { acceptInvitationSchema, createInvitationSchema, listInvitationsQuery, listMembersQuery } from '../schemas/tenant.schemas';
import { createTokenIntentSchema } from '../schemas/token-intent.schemas';
import { listTokensV2Query, searchTokensV2Schema } from '../schemas/token-v2.schemas';
import { createTokenSchema, listTokensQuery, searchTokensSchema, updateTokenSchema } from '../schemas/token.schemas';
import { listDeliveriesQuery, listWebhooksQuery, webhookSchema } from '../schemas/webhook.schemas';
import { cursorPage, type JsonSchema, page, ref } from './answer-schemas';

/**
 * How a route is called: `key` takes an API key (SVC-API-KEY or BT-API-KEY), `none` takes none, `proxy` takes a proxy
 * key (SVC-PROXY-KEY), an API key, or both; `metrics` takes the metrics bearer token when one is set.
 */
export type Credentials = 'key' | 'none' | 'proxy' | 'metrics';

/** A request body as the route reads it. */
export interface BodyDoc {
  /**
   * The zod schema the route validates the body with: the document shows its input side, under `name` among the
   * components. A JSON Schema instead only where the route takes any JSON value (POST /tokenize, /detokenize).
   */
  readonly schema: z.ZodType | JsonSchema;
  readonly name: string;
  /** The media types the route's body parser takes. */
  readonly types: readonly string[];
  /** False where the route treats no body as `{}`. */
  readonly required: boolean;
  readonly description?: string;
  /** A valid body, shown by the renderer (test/openapi.test.ts checks each against its schema and the route). */
  readonly example?: unknown;
}

/** An answer of a route: a 2xx, or a 4xx that is not problem+json (the invitation page's). Problems are in `problems`. */
export interface AnswerDoc {
  readonly description: string;
  readonly schema?: JsonSchema;
  /** Default `application/json` when there is a schema. */
  readonly type?: string;
}

/** A parameter the route reads outside its zod query schema (a header, `metadata.<key>` filters). */
export interface ParameterDoc {
  readonly name: string;
  readonly in: 'query' | 'header';
  readonly description: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
}

/** One route as the document describes it. */
export interface OperationDoc {
  /** The operation's id (for the proxy, which answers every method, a prefix of one per method). */
  readonly id: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly credentials: Credentials;
  /** The permissions the route checks (any one of them, where several). */
  readonly permissions?: readonly string[];
  /** A description of each path parameter, by the name the route gives it. */
  readonly path?: Readonly<Record<string, string>>;
  /** The zod schema the route validates its query with. */
  readonly query?: z.ZodObject;
  /** Descriptions of the query parameters, by name. */
  readonly queryNotes?: Readonly<Record<string, string>>;
  readonly parameters?: readonly ParameterDoc[];
  readonly body?: BodyDoc;
  readonly answers: Readonly<Record<number, AnswerDoc>>;
  /**
   * Problems beyond those the document adds from the route's shape: 401 and 403 with a key, 404 with a path
   * parameter, 400 with a query or a body, 413 and 415 with a body, the idempotency key's 400, 409 and 422, and 500.
   */
  readonly problems?: readonly number[];
}

const JSON_BODY = ['application/json'];
const PAGE_QUERY = { page: 'The page, from 1.', size: 'Items per page.' };
const uuidParam = (what: string) => `The ${what}'s id (a UUID; anything else is answered as absent).`;

const metadataFilters: ParameterDoc = {
  name: 'metadata',
  in: 'query',
  description:
    'Metadata filters as one JSON object of strings (`metadata={"team":"red"}`, as Basis Theory\'s SDKs send it), or as ' +
    'one `metadata.<key>=<value>` parameter per key (`metadata.team=red`): every filter must match. Keys are compared ' +
    'case-insensitively.',
  schema: { type: 'string' },
};

const applicationBody = {
  name: 'CreateApplication',
  types: JSON_BODY,
  required: true,
  example: {
    name: 'Checkout',
    type: 'private',
    permissions: ['token:create', 'token:read'],
    rules: [{ description: 'PCI data masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }],
  },
};

const webhookExample = { name: 'Token events', url: 'https://hooks.example.com/svc', events: ['token.created', 'token.deleted'], notify_email: 'ops@example.com' };

const proxyExample = {
  name: 'Payment processor',
  destination_url: 'https://processor.example.com/v1',
  request_transforms: [{ type: 'append_header', name: 'Authorization', value: 'Bearer {{ configuration.API_KEY }}' }],
  response_transforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{12,19}', replacement: '*' }],
  configuration: { API_KEY: 'sk_test_example' },
  require_auth: true,
};

/** Every method the proxy passes on is documented under these. */
export const PROXY_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const proxyCall = (path: boolean): OperationDoc => ({
  id: path ? 'proxyPath' : 'proxy',
  tag: 'Proxy',
  summary: path ? 'Send a request through a proxy, with a path' : 'Send a request through a proxy',
  description:
    'Passes the request on to a destination and its answer back, detokenizing `{{ … }}` expressions in the request ' +
    'on the way (beyond.md §7; see docs/proxy.md). Any method is passed on; the document lists the common ones. ' +
    'TRACE and TRACK are refused (405): they would echo the credentials a proxy adds.\n\n' +
    'Either name a pre-configured proxy with its key (`SVC-PROXY-KEY` or `BT-PROXY-KEY` header, or the `svc-proxy-key` ' +
    '/ `bt-proxy-key` query parameter): an API key is then needed unless the proxy was made with `require_auth: false`; ' +
    'or name the destination in `SVC-PROXY-URL` (or `BT-PROXY-URL`) with an API key (`proxy:invoke`).\n\n' +
    'The destination\'s status, headers and body are answered as they came, plus `SVC-PROXY-DESTINATION-STATUS`; the ' +
    'answers below are svc\'s own.' +
    (path
      ? '\n\nThe `{path}` parameter may hold several segments (`/proxy/v1/charges` sends `/v1/charges` on); the router ' +
        'takes it as a wildcard (`/proxy/*path`). `.` and `..` segments and encoded slashes are refused.'
      : ''),
  credentials: 'proxy',
  permissions: ['proxy:invoke'],
  ...(path ? { path: { path: 'What follows `/proxy`, sent on after the destination URL\'s own path; may hold `/`.' } } : {}),
  parameters: [
    { name: 'SVC-PROXY-URL', in: 'header', description: 'The destination, for a call without a proxy key (`BT-PROXY-URL` is read too).', schema: { type: 'string', format: 'uri' } },
    { name: 'svc-proxy-key', in: 'query', description: 'The proxy key, where a header cannot be set (`bt-proxy-key` is read too); removed from the query sent on.', schema: { type: 'string' } },
  ],
  body: { schema: { description: 'Any body, of any media type: passed on, its expressions detokenized.' }, name: 'ProxyBody', types: ['*/*'], required: false },
  answers: { 200: { description: 'The destination\'s answer (any status), passed on.', schema: {}, type: '*/*' } },
  problems: [400, 401, 403, 404, 405, 413, 502, 504],
});

/**
 * Every route the app serves, keyed by method and path exactly as the router holds them (`GET /tokens/:id`; `ALL` for a
 * route that takes every method). test/openapi.test.ts walks the router and fails on a route missing here, or on an
 * entry no route serves.
 */
export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'POST /tokens': {
    id: 'createToken',
    tag: 'Tokens',
    summary: 'Create a token',
    description:
      'Stores `data` as a token of `type`, or makes one from a token intent (`token_intent_id`). With ' +
      '`deduplicate_token`, a token of the same type and fingerprint is answered instead (201 all the same).',
    credentials: 'key',
    permissions: ['token:create'],
    body: {
      schema: createTokenSchema,
      name: 'CreateToken',
      types: JSON_BODY,
      required: true,
      example: { type: 'card_number', data: '4242424242424242', metadata: { customer: 'c_42' }, expires_at: '2030-01-01T00:00:00Z' },
    },
    answers: { 201: { description: 'The token, its data as the caller\'s access rules show it.', schema: ref('Token') } },
    problems: [409],
  },
  'POST /tokens/search': {
    id: 'searchTokens',
    tag: 'Tokens',
    summary: 'Search tokens',
    description: 'Tokens matching a Lucene-style `query` (`type:card_number AND metadata.customer:c_42`), by page.',
    credentials: 'key',
    permissions: ['token:search'],
    body: { schema: searchTokensSchema, name: 'SearchTokens', types: JSON_BODY, required: false, example: { query: 'type:card_number', page: 1, size: 20 } },
    answers: { 200: { description: 'A page of tokens.', schema: page(ref('Token')) } },
  },
  'GET /tokens': {
    id: 'listTokens',
    tag: 'Tokens',
    summary: 'List tokens',
    credentials: 'key',
    permissions: ['token:read'],
    query: listTokensQuery,
    queryNotes: { id: 'Only these ids (repeat the parameter).', type: 'Only these token types (repeat the parameter).', ...PAGE_QUERY },
    parameters: [metadataFilters],
    answers: { 200: { description: 'A page of tokens, newest first.', schema: page(ref('Token')) } },
  },
  'GET /tokens/:id': {
    id: 'getToken',
    tag: 'Tokens',
    summary: 'Get a token',
    credentials: 'key',
    permissions: ['token:read'],
    path: { id: 'The token\'s id.' },
    answers: { 200: { description: 'The token.', schema: ref('Token') } },
  },
  'PATCH /tokens/:id': {
    id: 'updateToken',
    tag: 'Tokens',
    summary: 'Update a token',
    description: 'A JSON merge patch (RFC 7386): `data`, `mask` and `metadata` are merged, the other fields replaced; `null` removes.',
    credentials: 'key',
    permissions: ['token:update'],
    path: { id: 'The token\'s id.' },
    body: { schema: updateTokenSchema, name: 'UpdateToken', types: ['application/merge-patch+json'], required: false, example: { metadata: { customer: null, plan: 'gold' } } },
    answers: { 200: { description: 'The token as updated.', schema: ref('Token') } },
  },
  'DELETE /tokens/:id': {
    id: 'deleteToken',
    tag: 'Tokens',
    summary: 'Delete a token',
    credentials: 'key',
    permissions: ['token:delete'],
    path: { id: 'The token\'s id.' },
    answers: { 204: { description: 'Deleted.' } },
  },
  'POST /tokenize': {
    id: 'tokenize',
    tag: 'Bulk',
    summary: 'Tokenize a JSON document',
    description:
      'Any JSON value. An object with `type` and `data` (or `token_intent_id`) is a create request, checked as the ' +
      'body of `POST /tokens` (`CreateToken`) and answered by the token plus `_extras.deduplicated`; any other string, ' +
      'number or boolean becomes a token of type `token`, answered by its id. All or nothing; see docs/bulk.md.',
    credentials: 'key',
    permissions: ['token:create'],
    body: {
      schema: { description: 'Any JSON value; its create requests are `CreateToken` bodies.' },
      name: 'TokenizeBody',
      types: JSON_BODY,
      required: true,
      example: { card: { type: 'card_number', data: '4242424242424242' }, name: 'Ada Lovelace' },
    },
    answers: { 201: { description: 'The same shape, each value replaced by its token (or token id).', schema: {} } },
    problems: [409],
  },
  'POST /detokenize': {
    id: 'detokenize',
    tag: 'Bulk',
    summary: 'Detokenize a JSON document',
    description: 'Any JSON value; every string holding `{{ <token id> }}` expressions has them replaced by what they name (see docs/bulk.md).',
    credentials: 'key',
    permissions: ['token:read'],
    body: {
      schema: { description: 'Any JSON value holding detokenization expressions.' },
      name: 'DetokenizeBody',
      types: JSON_BODY,
      required: true,
      example: { number: '{{ 5c4e8bd2-0a6f-4d7e-9b1a-3f0c2d8e7a61 }}' },
    },
    answers: { 200: { description: 'The same shape, expressions replaced by token data.', schema: {} } },
  },
  'GET /v2/tokens': {
    id: 'listTokensV2',
    tag: 'Tokens',
    summary: 'List tokens by cursor',
    description: 'Basis Theory\'s v2 list: pages by opaque cursor (`start`), newest first.',
    credentials: 'key',
    permissions: ['token:read'],
    query: listTokensV2Query,
    queryNotes: {
      type: 'Only these token types (repeat the parameter).',
      container: 'Only tokens in this container.',
      fingerprint: 'Only tokens with this fingerprint.',
      start: 'The cursor of the page: `pagination.next` of the page before.',
      size: 'Items per page.',
    },
    parameters: [metadataFilters],
    answers: { 200: { description: 'A page of tokens.', schema: cursorPage(ref('Token')) } },
  },
  'POST /v2/tokens/search': {
    id: 'searchTokensV2',
    tag: 'Tokens',
    summary: 'Search tokens by cursor',
    credentials: 'key',
    permissions: ['token:search'],
    body: { schema: searchTokensV2Schema, name: 'SearchTokensV2', types: JSON_BODY, required: false, example: { query: 'type:card_number', size: 20 } },
    answers: { 200: { description: 'A page of tokens.', schema: cursorPage(ref('Token')) } },
  },
  'POST /token-intents': {
    id: 'createTokenIntent',
    tag: 'Token intents',
    summary: 'Create a token intent',
    description: 'Card or bank data held for a day, until `POST /tokens` makes a token from it (`token_intent_id`).',
    credentials: 'key',
    permissions: ['token:intent:create'],
    body: {
      schema: createTokenIntentSchema,
      name: 'CreateTokenIntent',
      types: JSON_BODY,
      required: true,
      example: { type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' } },
    },
    answers: { 201: { description: 'The intent, without the card number or cvc.', schema: ref('TokenIntent') } },
  },
  'GET /token-intents/:id': {
    id: 'getTokenIntent',
    tag: 'Token intents',
    summary: 'Get a token intent',
    credentials: 'key',
    permissions: ['token:intent:read'],
    path: { id: 'The token intent\'s id.' },
    answers: { 200: { description: 'The intent.', schema: ref('TokenIntent') } },
  },
  'DELETE /token-intents/:id': {
    id: 'deleteTokenIntent',
    tag: 'Token intents',
    summary: 'Delete a token intent',
    credentials: 'key',
    permissions: ['token:intent:delete'],
    path: { id: 'The token intent\'s id.' },
    answers: { 204: { description: 'Deleted.' } },
  },
  'POST /applications': {
    id: 'createApplication',
    tag: 'Applications',
    summary: 'Create an application',
    credentials: 'key',
    permissions: ['application:create'],
    body: { schema: createApplicationSchema, ...applicationBody },
    answers: { 201: { description: 'The application with its first key (`key`), shown this once.', schema: ref('Application') } },
  },
  'GET /applications': {
    id: 'listApplications',
    tag: 'Applications',
    summary: 'List applications',
    credentials: 'key',
    permissions: ['application:read'],
    query: listApplicationsQuery,
    queryNotes: { id: 'Only these ids (repeat the parameter).', type: 'Only this type: private, public or management.', ...PAGE_QUERY },
    answers: { 200: { description: 'A page of applications.', schema: page(ref('Application')) } },
  },
  'GET /applications/key': {
    id: 'getApplicationByKey',
    tag: 'Applications',
    summary: 'Get the caller\'s application',
    description: 'The application whose key made the request.',
    credentials: 'key',
    permissions: ['application:read'],
    answers: { 200: { description: 'The application.', schema: ref('Application') } },
  },
  'GET /applications/:id': {
    id: 'getApplication',
    tag: 'Applications',
    summary: 'Get an application',
    credentials: 'key',
    permissions: ['application:read'],
    path: { id: uuidParam('application') },
    answers: { 200: { description: 'The application.', schema: ref('Application') } },
  },
  'PUT /applications/:id': {
    id: 'updateApplication',
    tag: 'Applications',
    summary: 'Update an application',
    credentials: 'key',
    permissions: ['application:update'],
    path: { id: uuidParam('application') },
    body: { schema: updateApplicationSchema, name: 'UpdateApplication', types: JSON_BODY, required: true, example: { name: 'Checkout', permissions: ['token:read'] } },
    answers: { 200: { description: 'The application as updated.', schema: ref('Application') } },
  },
  'POST /applications/:id/regenerate': {
    id: 'regenerateApplicationKey',
    tag: 'Applications',
    summary: 'Regenerate an application\'s key',
    description: 'Revokes every key of the application and issues a new one.',
    credentials: 'key',
    permissions: ['application:update'],
    path: { id: uuidParam('application') },
    body: { schema: emptyBody, name: 'EmptyBody', types: JSON_BODY, required: false },
    answers: { 200: { description: 'The application with its new key (`key`), shown this once.', schema: ref('Application') } },
  },
  'DELETE /applications/:id': {
    id: 'deleteApplication',
    tag: 'Applications',
    summary: 'Delete an application',
    credentials: 'key',
    permissions: ['application:delete'],
    path: { id: uuidParam('application') },
    answers: { 204: { description: 'Deleted, with its keys.' } },
  },
  'POST /applications/:id/keys': {
    id: 'createApplicationKey',
    tag: 'Applications',
    summary: 'Add a key to an application',
    credentials: 'key',
    permissions: ['application:update'],
    path: { id: uuidParam('application') },
    body: { schema: emptyBody, name: 'EmptyBody', types: JSON_BODY, required: false },
    answers: { 201: { description: 'The key, with its value (`key`) shown this once.', schema: ref('ApplicationKey') } },
  },
  'GET /applications/:id/keys': {
    id: 'listApplicationKeys',
    tag: 'Applications',
    summary: 'List an application\'s keys',
    credentials: 'key',
    permissions: ['application:read'],
    path: { id: uuidParam('application') },
    answers: { 200: { description: 'The keys, without their values.', schema: { type: 'array', items: ref('ApplicationKey') } } },
  },
  'GET /applications/:id/keys/:key_id': {
    id: 'getApplicationKey',
    tag: 'Applications',
    summary: 'Get an application key',
    credentials: 'key',
    permissions: ['application:read'],
    path: { id: uuidParam('application'), key_id: uuidParam('key') },
    answers: { 200: { description: 'The key, without its value.', schema: ref('ApplicationKey') } },
  },
  'DELETE /applications/:id/keys/:key_id': {
    id: 'deleteApplicationKey',
    tag: 'Applications',
    summary: 'Revoke an application key',
    credentials: 'key',
    permissions: ['application:update'],
    path: { id: uuidParam('application'), key_id: uuidParam('key') },
    answers: { 204: { description: 'Revoked.' } },
  },
  'POST /sessions': {
    id: 'createSession',
    tag: 'Sessions',
    summary: 'Create a session',
    description: 'A short-lived key for a browser or mobile client; it can do nothing until a private application authorizes it.',
    credentials: 'key',
    permissions: ['session:create'],
    body: { schema: emptyBody, name: 'EmptyBody', types: JSON_BODY, required: false },
    answers: { 201: { description: 'The session key and the nonce to authorize it with.', schema: ref('Session') } },
  },
  'POST /sessions/authorize': {
    id: 'authorizeSession',
    tag: 'Sessions',
    summary: 'Authorize a session',
    description: 'Grants the session named by its nonce permissions or access rules; a nonce authorizes once.',
    credentials: 'key',
    permissions: ['session:authorize'],
    body: {
      schema: authorizeSessionSchema,
      name: 'AuthorizeSession',
      types: JSON_BODY,
      required: true,
      example: { nonce: 'the nonce of POST /sessions', rules: [{ priority: 1, conditions: [{ attribute: 'id', operator: 'equals', value: 'a-token-id' }], transform: 'reveal', permissions: ['token:read'] }] },
    },
    answers: { 200: { description: 'Authorized (no body).' } },
    problems: [409],
  },
  'GET /tenants/self': {
    id: 'getTenant',
    tag: 'Tenants',
    summary: 'Get the caller\'s tenant',
    credentials: 'key',
    permissions: ['tenant:read'],
    answers: { 200: { description: 'The tenant.', schema: ref('Tenant') } },
  },
  'GET /tenants/self/members': {
    id: 'listMembers',
    tag: 'Tenants',
    summary: 'List the tenant\'s members',
    credentials: 'key',
    permissions: ['tenant:member:read'],
    query: listMembersQuery,
    queryNotes: { user_id: 'Only these users (repeat the parameter).', ...PAGE_QUERY },
    answers: { 200: { description: 'A page of members.', schema: page(ref('Member')) } },
  },
  'DELETE /tenants/self/members/:id': {
    id: 'deleteMember',
    tag: 'Tenants',
    summary: 'Remove a member',
    description: 'The OWNER member cannot be removed (422).',
    credentials: 'key',
    permissions: ['tenant:member:delete'],
    path: { id: uuidParam('member') },
    answers: { 204: { description: 'Removed.' } },
    problems: [422],
  },
  'POST /tenants/self/invitations': {
    id: 'createInvitation',
    tag: 'Tenants',
    summary: 'Invite someone',
    description: 'Sends an e-mail with a link to accept the invitation.',
    credentials: 'key',
    permissions: ['tenant:invitation:create'],
    body: { schema: createInvitationSchema, name: 'CreateInvitation', types: JSON_BODY, required: true, example: { email: 'grace@example.com' } },
    answers: { 201: { description: 'The invitation.', schema: ref('Invitation') } },
    problems: [409, 503],
  },
  'POST /tenants/self/invitations/:id/resend': {
    id: 'resendInvitation',
    tag: 'Tenants',
    summary: 'Resend an invitation',
    description: 'A new link, valid for a new period; the old link stops working.',
    credentials: 'key',
    permissions: ['tenant:invitation:create', 'tenant:invitation:update'],
    path: { id: uuidParam('invitation') },
    body: { schema: emptyBody, name: 'EmptyBody', types: JSON_BODY, required: false },
    answers: { 200: { description: 'The invitation.', schema: ref('Invitation') } },
    problems: [503],
  },
  'GET /tenants/self/invitations': {
    id: 'listInvitations',
    tag: 'Tenants',
    summary: 'List invitations',
    credentials: 'key',
    permissions: ['tenant:invitation:read'],
    query: listInvitationsQuery,
    queryNotes: { status: 'Only PENDING or EXPIRED invitations.', ...PAGE_QUERY },
    answers: { 200: { description: 'A page of invitations.', schema: page(ref('Invitation')) } },
  },
  'GET /tenants/self/invitations/:id': {
    id: 'getInvitation',
    tag: 'Tenants',
    summary: 'Get an invitation',
    credentials: 'key',
    permissions: ['tenant:invitation:read'],
    path: { id: uuidParam('invitation') },
    answers: { 200: { description: 'The invitation.', schema: ref('Invitation') } },
  },
  'DELETE /tenants/self/invitations/:id': {
    id: 'deleteInvitation',
    tag: 'Tenants',
    summary: 'Delete an invitation',
    credentials: 'key',
    permissions: ['tenant:invitation:delete'],
    path: { id: uuidParam('invitation') },
    answers: { 204: { description: 'Deleted; its link stops working.' } },
  },
  'GET /invitations/accept': {
    id: 'acceptInvitationPage',
    tag: 'Invitations',
    summary: 'The page that accepts an invitation',
    description: 'What the invitation e-mail links to: an HTML page with a form. Errors are HTML pages with the same status.',
    credentials: 'none',
    parameters: [{ name: 'token', in: 'query', required: true, description: 'The secret of the invitation\'s link: the credential of this page.', schema: { type: 'string' } }],
    answers: {
      200: { description: 'The page, with its form.', type: 'text/html' },
      400: { description: 'No token: a page saying so.', type: 'text/html' },
      410: { description: 'The link was used, replaced by a newer one, deleted or has expired: a page saying so.', type: 'text/html' },
    },
  },
  'POST /invitations/accept': {
    id: 'acceptInvitation',
    tag: 'Invitations',
    summary: 'Accept an invitation',
    description:
      'The link\'s secret (`token`) is the credential. From the page\'s form (`application/x-www-form-urlencoded`) the ' +
      'answer is an HTML page, errors included; with JSON it is the new member, errors as problem+json.',
    credentials: 'none',
    body: {
      schema: acceptInvitationSchema,
      name: 'AcceptInvitation',
      types: ['application/json', 'application/x-www-form-urlencoded'],
      required: true,
      example: { token: 'the secret of the link', first_name: 'Grace', last_name: 'Hopper' },
    },
    answers: { 201: { description: 'The new member (JSON), or a page saying so (form).', schema: ref('Member') } },
    problems: [409, 410],
  },
  'GET /permissions': {
    id: 'listPermissions',
    tag: 'Permissions',
    summary: 'List permissions',
    description: 'The permission catalogue; any valid key may read it.',
    credentials: 'key',
    query: listPermissionsQuery,
    queryNotes: { application_type: 'Only the permissions of this application type: private, public or management.' },
    answers: { 200: { description: 'The permissions.', schema: { type: 'array', items: ref('Permission') } } },
  },
  'POST /webhooks': {
    id: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Create a webhook',
    description: 'See docs/webhooks.md for the events, the signature and retries. A tenant holds at most 50 webhooks.',
    credentials: 'key',
    permissions: ['webhook:create'],
    body: { schema: webhookSchema, name: 'WebhookInput', types: JSON_BODY, required: true, example: webhookExample },
    answers: { 201: { description: 'The webhook with its signing secret (`secret`), shown this once.', schema: ref('Webhook') } },
  },
  'GET /webhooks': {
    id: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List webhooks',
    credentials: 'key',
    permissions: ['webhook:read'],
    query: listWebhooksQuery,
    queryNotes: PAGE_QUERY,
    answers: { 200: { description: 'A page of webhooks.', schema: page(ref('Webhook')) } },
  },
  'GET /webhooks/event-types': {
    id: 'listWebhookEventTypes',
    tag: 'Webhooks',
    summary: 'List the event types',
    credentials: 'key',
    permissions: ['webhook:read'],
    answers: { 200: { description: 'Every event type a webhook may subscribe to.', schema: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] } } } },
  },
  'GET /webhooks/:id': {
    id: 'getWebhook',
    tag: 'Webhooks',
    summary: 'Get a webhook',
    credentials: 'key',
    permissions: ['webhook:read'],
    path: { id: uuidParam('webhook') },
    answers: { 200: { description: 'The webhook, without its secret.', schema: ref('Webhook') } },
  },
  'PUT /webhooks/:id': {
    id: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Replace a webhook',
    credentials: 'key',
    permissions: ['webhook:update'],
    path: { id: uuidParam('webhook') },
    body: { schema: webhookSchema, name: 'WebhookInput', types: JSON_BODY, required: true, example: { ...webhookExample, status: 'disabled' } },
    answers: { 200: { description: 'The webhook as replaced.', schema: ref('Webhook') } },
  },
  'GET /webhooks/:id/deliveries': {
    id: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'List a webhook\'s deliveries',
    credentials: 'key',
    permissions: ['webhook:read'],
    path: { id: uuidParam('webhook') },
    query: listDeliveriesQuery,
    queryNotes: PAGE_QUERY,
    answers: { 200: { description: 'A page of deliveries, newest first, each with its attempts.', schema: page(ref('WebhookDelivery')) } },
  },
  'DELETE /webhooks/:id': {
    id: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook',
    credentials: 'key',
    permissions: ['webhook:delete'],
    path: { id: uuidParam('webhook') },
    answers: { 204: { description: 'Deleted.' } },
  },
  'POST /proxies': {
    id: 'createProxy',
    tag: 'Proxies',
    summary: 'Create a pre-configured proxy',
    description: 'See docs/proxy.md for the transforms and limits. Fields left out take their defaults; `name` and `destination_url` are required.',
    credentials: 'key',
    permissions: ['proxy:create'],
    body: { schema: proxySchema, name: 'ProxyInput', types: JSON_BODY, required: false, example: proxyExample },
    answers: { 201: { description: 'The proxy with its key (`key`), shown this once.', schema: ref('Proxy') } },
  },
  'GET /proxies': {
    id: 'listProxies',
    tag: 'Proxies',
    summary: 'List proxies',
    credentials: 'key',
    permissions: ['proxy:read'],
    query: listProxiesQuery,
    queryNotes: { id: 'Only these ids (repeat the parameter).', name: 'Only proxies whose name holds this text (case-insensitive).', ...PAGE_QUERY },
    answers: { 200: { description: 'A page of proxies.', schema: page(ref('Proxy')) } },
  },
  'GET /proxies/:id': {
    id: 'getProxy',
    tag: 'Proxies',
    summary: 'Get a proxy',
    credentials: 'key',
    permissions: ['proxy:read'],
    path: { id: uuidParam('proxy') },
    answers: { 200: { description: 'The proxy, without its key.', schema: ref('Proxy') } },
  },
  'PUT /proxies/:id': {
    id: 'replaceProxy',
    tag: 'Proxies',
    summary: 'Replace a proxy',
    description: 'Fields left out take their defaults.',
    credentials: 'key',
    permissions: ['proxy:update'],
    path: { id: uuidParam('proxy') },
    body: { schema: proxySchema, name: 'ProxyInput', types: JSON_BODY, required: false, example: proxyExample },
    answers: { 200: { description: 'The proxy as replaced.', schema: ref('Proxy') } },
    problems: [409],
  },
  'PATCH /proxies/:id': {
    id: 'patchProxy',
    tag: 'Proxies',
    summary: 'Change a proxy',
    description: 'A JSON merge patch: fields left out keep their values; `null` clears a field that may be cleared.',
    credentials: 'key',
    permissions: ['proxy:update'],
    path: { id: uuidParam('proxy') },
    body: { schema: proxySchema, name: 'ProxyInput', types: ['application/merge-patch+json', 'application/json'], required: false, example: { name: 'Renamed proxy', timeout: null } },
    answers: { 200: { description: 'The proxy as changed.', schema: ref('Proxy') } },
    problems: [409],
  },
  'DELETE /proxies/:id': {
    id: 'deleteProxy',
    tag: 'Proxies',
    summary: 'Delete a proxy',
    credentials: 'key',
    permissions: ['proxy:delete'],
    path: { id: uuidParam('proxy') },
    answers: { 204: { description: 'Deleted; its key stops working.' } },
  },
  'ALL /proxy': proxyCall(false),
  'ALL /proxy/*path': proxyCall(true),
  'GET /logs': {
    id: 'listAuditEvents',
    tag: 'Audit log',
    summary: 'List audit events',
    description: 'Who did what to which object, and how it ended; newest first (see docs/operations.md, "The audit log").',
    credentials: 'key',
    permissions: ['log:read'],
    query: listLogsQuery,
    queryNotes: {
      entity_type: 'Only events about this kind of object (see `GET /logs/entity-types`).',
      entity_id: 'Only events about this object.',
      start_date: 'Only events at or after this instant (ISO 8601).',
      end_date: 'Only events before this instant (ISO 8601).',
      ...PAGE_QUERY,
    },
    answers: { 200: { description: 'A page of events.', schema: page(ref('AuditEvent')) } },
  },
  'GET /logs/entity-types': {
    id: 'listAuditEntityTypes',
    tag: 'Audit log',
    summary: 'List the entity types of the audit log',
    credentials: 'key',
    permissions: ['log:read'],
    answers: { 200: { description: 'The entity types.', schema: { type: 'array', items: ref('EntityType') } } },
  },
  'GET /healthz': {
    id: 'getHealth',
    tag: 'Operations',
    summary: 'Liveness probe',
    description: 'The process answers. No key, no detail.',
    credentials: 'none',
    answers: { 200: { description: 'Up.', schema: ref('Health') } },
  },
  'GET /readyz': {
    id: 'getReadiness',
    tag: 'Operations',
    summary: 'Readiness probe',
    description: 'The server takes traffic and its store answers; false (503) from the moment a shutdown begins. No key, no detail.',
    credentials: 'none',
    answers: { 200: { description: 'Ready.', schema: ref('Health') } },
    problems: [503],
  },
  'GET /metrics': {
    id: 'getMetrics',
    tag: 'Operations',
    summary: 'Prometheus metrics',
    description:
      'Served only when `SVC_METRICS=1`; behind `Authorization: Bearer <SVC_METRICS_TOKEN>` when that is set. Labels ' +
      'hold route patterns and statuses, never an id, key or data.',
    credentials: 'metrics',
    answers: { 200: { description: 'The metrics, in Prometheus\'s text format.', type: 'text/plain' } },
    problems: [401],
  },
  'GET /openapi.json': {
    id: 'getOpenApiDocument',
    tag: 'Documentation',
    summary: 'This document',
    description: 'The OpenAPI 3.1 description of the API, generated from the schemas the routes validate with. No key: it holds no tenant data.',
    credentials: 'none',
    answers: { 200: { description: 'The document.', schema: { type: 'object' } } },
  },
  'GET /docs': {
    id: 'getDocsPage',
    tag: 'Documentation',
    summary: 'This document, rendered',
    description: 'Swagger UI over `/openapi.json`, served from svc itself (no CDN). No key.',
    credentials: 'none',
    answers: { 200: { description: 'The page.', type: 'text/html' } },
  },
  'GET /console': {
    id: 'getConsolePage',
    tag: 'Console',
    summary: 'The operator console',
    description:
      'A web page for the people who operate a tenant (applications, tokens, members, the audit log, webhooks, proxies), ' +
      'routed by its hash (`/console#/applications`); its files are `/console/console.js` and `/console/console.css`. ' +
      'The page takes no key: it asks for one, keeps it in the tab\'s sessionStorage and calls this API with it. ' +
      'Served under a CSP that allows its own files and calls to this server only (see docs/console.md).',
    credentials: 'none',
    answers: { 200: { description: 'The page.', type: 'text/html' } },
  },
};

/** Schemas the request schemas share, named in the document rather than repeated. */
export const SHARED_REQUEST_SCHEMAS: ReadonlyArray<readonly [z.ZodType, string]> = [[ruleSchema, 'AccessRuleInput']];
