import {
  APPLICATION_TYPES,
  AUDIT_ENTITY_TYPES,
  CARD_BRANDS,
  INVITATION_STATUSES,
  MEMBER_ROLES,
  PERMISSIONS,
  TOKEN_INTENT_TYPES,
  TOKEN_TYPE_NAMES,
  TRANSFORMS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_STATUSES,
} from '@svc/core';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), as a plain object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** A reference to one of the document's schema components. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const text: JsonSchema = { type: 'string' };
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const instant: JsonSchema = { type: 'string', format: 'date-time' };
const texts: JsonSchema = { type: 'array', items: text };
const oneOf = (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] });
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

/** An object whose `required` fields are always present and whose other fields are present when set. */
function object(properties: Record<string, JsonSchema>, required: readonly string[], description?: string): JsonSchema {
  return { type: 'object', ...(description ? { description } : {}), properties, required: [...required], additionalProperties: false };
}

/** The numbered list envelope of presenters/pagination.ts around items of `item`. */
export const page = (item: JsonSchema): JsonSchema => object({ pagination: ref('Pagination'), data: { type: 'array', items: item } }, ['pagination', 'data']);

/** The cursor envelope of presenters/cursor-pagination.ts around items of `item`. */
export const cursorPage = (item: JsonSchema): JsonSchema => object({ pagination: ref('CursorPagination'), data: { type: 'array', items: item } }, ['pagination', 'data']);

/**
 * What the presenters answer, written by hand beside them: each schema says exactly what its presenter writes (a field
 * a presenter leaves undefined is absent from the JSON, hence not required). test/openapi.test.ts checks real answers
 * against these schemas, so a presenter that changes without them fails there.
 */
export const ANSWER_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  // problem.ts: RFC 9457, the body of every 4xx and 5xx.
  Problem: object(
    {
      type: { type: 'string', format: 'uri', description: 'The problem type, `https://svc.dev/errors/<kind>`.' },
      title: text,
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: text,
      instance: { type: 'string', description: 'The request path.' },
      errors: {
        type: 'object',
        description: 'Field path (`data.number`, `rules[0].transform`, a header name) to messages.',
        additionalProperties: texts,
      },
      trace_id: { type: 'string', description: 'On a 500: the correlation id to quote.' },
    },
    ['type', 'title', 'status'],
    'An RFC 9457 problem document.',
  ),
  Pagination: object(
    { total_items: { type: 'integer' }, page_number: { type: 'integer' }, page_size: { type: 'integer' }, total_pages: { type: 'integer' } },
    ['total_items', 'page_number', 'page_size', 'total_pages'],
  ),
  CursorPagination: object(
    { page_size: { type: 'integer' }, next: { type: 'string', description: 'The `start` of the next page; absent on the last one.' } },
    ['page_size'],
  ),
  Token: object(
    {
      id: text,
      type: oneOf(TOKEN_TYPE_NAMES),
      tenant_id: uuid,
      data: { description: 'Present when the caller\'s transform yields it: the data (reveal), the evaluated mask (mask); absent for redact.' },
      mask: { description: 'A template, or an object or array of templates.' },
      fingerprint: text,
      fingerprint_expression: text,
      containers: texts,
      metadata: { type: 'object', additionalProperties: text },
      search_indexes: texts,
      created_by: text,
      created_at: instant,
      modified_by: text,
      modified_at: instant,
      expires_at: instant,
    },
    ['id', 'type', 'tenant_id', 'fingerprint', 'containers'],
    'A token. A deduplicated token answered to a caller that may not read it shows only id, type, tenant_id, fingerprint and containers.',
  ),
  TokenIntent: object(
    {
      id: text,
      type: oneOf(TOKEN_INTENT_TYPES),
      tenant_id: uuid,
      fingerprint: text,
      created_by: text,
      created_at: instant,
      expires_at: instant,
      card: object(
        {
          bin: text,
          last4: text,
          expiration_month: { type: 'integer' },
          expiration_year: { type: 'integer' },
          brand: oneOf([...CARD_BRANDS, 'unknown']),
          funding: oneOf(['unknown']),
        },
        ['bin', 'last4', 'brand', 'funding'],
      ),
      bank: object({ routing_number: text, account_number_last4: text }, ['routing_number', 'account_number_last4']),
    },
    ['id', 'type', 'tenant_id', 'fingerprint', 'created_by', 'created_at', 'expires_at'],
    'A token intent: never the card number or cvc, only what identifies the card.',
  ),
  AccessRule: object(
    {
      description: text,
      priority: { type: 'integer' },
      container: text,
      conditions: { type: 'array', items: object({ attribute: text, operator: text, value: text }, ['attribute', 'operator', 'value']) },
      transform: oneOf(TRANSFORMS),
      permissions: { type: 'array', items: oneOf(PERMISSIONS) },
    },
    ['priority', 'transform', 'permissions'],
  ),
  Application: object(
    {
      id: uuid,
      tenant_id: uuid,
      name: text,
      key: { type: 'string', description: 'The new key: only in the answers of create and regenerate, the one time it is shown.' },
      type: oneOf(APPLICATION_TYPES),
      permissions: { type: 'array', items: oneOf(PERMISSIONS) },
      rules: { type: 'array', items: ref('AccessRule') },
      created_by: text,
      created_at: instant,
      modified_by: text,
      modified_at: instant,
      expires_at: instant,
    },
    ['id', 'tenant_id', 'name', 'type', 'permissions', 'rules', 'created_at'],
  ),
  ApplicationKey: object(
    {
      id: uuid,
      key: { type: 'string', description: 'Only in the create answer, the one time it is shown.' },
      version: oneOf(['1']),
      created_by: text,
      created_at: instant,
    },
    ['id', 'version', 'created_at'],
  ),
  Session: object({ session_key: text, nonce: text, expires_at: instant }, ['session_key', 'nonce', 'expires_at']),
  Tenant: object(
    {
      id: uuid,
      name: text,
      owner_id: uuid,
      type: oneOf(['PRODUCTION']),
      settings: object({}, []),
      created_by: uuid,
      created_at: instant,
      modified_by: uuid,
      modified_at: instant,
    },
    ['id', 'name', 'owner_id', 'type', 'settings', 'created_by', 'created_at', 'modified_by', 'modified_at'],
  ),
  Member: object(
    {
      id: uuid,
      tenant_id: uuid,
      role: oneOf(MEMBER_ROLES),
      user: object({ id: uuid, email: text, first_name: text, last_name: text, picture: text }, ['id', 'email']),
      created_by: text,
      created_at: instant,
      created_date: { ...instant, description: 'created_at again, under the name the Basis Theory SDK reads' },
      modified_by: text,
      modified_at: instant,
    },
    ['id', 'tenant_id', 'role', 'user', 'created_at'],
  ),
  Invitation: object(
    {
      id: uuid,
      tenant_id: uuid,
      email: text,
      role: { ...oneOf(['ADMIN']), description: 'the role the member made on acceptance gets' },
      status: oneOf(INVITATION_STATUSES),
      expires_at: instant,
      created_by: text,
      created_at: instant,
      modified_by: text,
      modified_at: instant,
    },
    ['id', 'tenant_id', 'email', 'status', 'expires_at', 'created_at'],
    'An invitation; the secret of its link never appears.',
  ),
  Permission: object(
    { type: oneOf(PERMISSIONS), description: text, application_types: { type: 'array', items: oneOf(APPLICATION_TYPES) } },
    ['type', 'description', 'application_types'],
  ),
  Webhook: object(
    {
      id: uuid,
      tenant_id: uuid,
      status: oneOf(WEBHOOK_STATUSES),
      name: text,
      url: text,
      notify_email: text,
      events: { type: 'array', items: oneOf(WEBHOOK_EVENT_TYPES) },
      secret: { type: 'string', description: 'The signing secret: only in the create answer, the one time it is shown.' },
      created_by: text,
      created_at: instant,
      modified_by: text,
      modified_at: instant,
    },
    ['id', 'tenant_id', 'status', 'name', 'url', 'events', 'created_by', 'created_at'],
  ),
  WebhookDelivery: object(
    {
      event_id: text,
      event_type: oneOf(WEBHOOK_EVENT_TYPES),
      webhook_id: uuid,
      status: oneOf(['pending', 'delivered', 'failed']),
      attempts: {
        type: 'array',
        items: object(
          { attempted_at: instant, status_code: nullable({ type: 'integer' }), error: nullable(text), duration_ms: { type: 'number' } },
          ['attempted_at', 'status_code', 'error', 'duration_ms'],
        ),
      },
      next_attempt_at: nullable(instant),
      created_at: instant,
      event: { type: 'object', description: 'The event as delivered (without `delivered_at`).' },
    },
    ['event_id', 'event_type', 'webhook_id', 'status', 'attempts', 'next_attempt_at', 'created_at', 'event'],
  ),
  ProxyTransform: {
    oneOf: [
      object({ type: oneOf(['tokenize']), matcher: text, token: { type: 'object' } }, ['type', 'matcher', 'token']),
      object({ type: oneOf(['detokenize']) }, ['type']),
      object({ type: oneOf(['mask']), matcher: text, expression: text, replacement: text }, ['type', 'matcher', 'replacement']),
      object({ type: oneOf(['append_header']), name: text, value: text }, ['type', 'name', 'value']),
    ],
  },
  Proxy: object(
    {
      id: uuid,
      key: { type: 'string', description: 'The proxy key: only in the create answer, the one time it is shown.' },
      tenant_id: uuid,
      name: text,
      destination_url: text,
      request_transforms: { type: 'array', items: ref('ProxyTransform') },
      response_transforms: { type: 'array', items: ref('ProxyTransform') },
      application_id: uuid,
      configuration: { type: 'object', additionalProperties: text },
      require_auth: { type: 'boolean' },
      timeout: { type: 'number', description: 'Seconds; absent when the server\'s SVC_PROXY_TIMEOUT applies.' },
      disable_detokenization: { type: 'boolean' },
      created_by: text,
      created_at: instant,
      modified_by: text,
      modified_at: instant,
    },
    [
      'id',
      'tenant_id',
      'name',
      'destination_url',
      'request_transforms',
      'response_transforms',
      'configuration',
      'require_auth',
      'disable_detokenization',
      'created_by',
      'created_at',
    ],
  ),
  AuditEvent: object(
    {
      id: text,
      tenant_id: uuid,
      actor_id: text,
      actor_type: oneOf(['application', 'session', 'system']),
      entity_type: oneOf(AUDIT_ENTITY_TYPES),
      entity_id: nullable(text),
      operation: text,
      outcome: oneOf(['success', 'denied', 'failed']),
      message: text,
      trace_id: nullable(text),
      created_at: instant,
    },
    ['id', 'tenant_id', 'actor_id', 'actor_type', 'entity_type', 'entity_id', 'operation', 'outcome', 'message', 'trace_id', 'created_at'],
  ),
  Health: object({ status: oneOf(['ok', 'ready']) }, ['status']),
  EntityType: object({ display_name: text, value: oneOf(AUDIT_ENTITY_TYPES) }, ['display_name', 'value']),
};
