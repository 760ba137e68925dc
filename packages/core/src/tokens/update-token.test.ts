import { anActor } from '../../testing/builders';
import { FixedClock } from '../../testing/fixed-clock';
import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import { SequentialIds } from '../../testing/sequential-ids';
import type { Actor } from '../auth/actor';
import { Keyring } from '../crypto/keyring';
import { ExpressionEngine } from '../expressions';
import { ConflictError, ForbiddenError, NotFoundError } from '../shared/errors';
import { CryptoRandomSource } from '../shared/random';
import { CreateToken } from './create-token';
import type { StoredToken } from './token';
import type { TokenRepository, UpdateTokenOutcome } from './token.repository';
import { MAX_UPDATE_ATTEMPTS, UpdateToken } from './update-token';

const TENANT = 'tttttttt-0000-4000-8000-000000000001';

/** A compare-and-set store where a test plays the other writer: `meanwhile` runs between a read and the next write. */
class RacedTokens implements TokenRepository {
  readonly rows = new Map<string, StoredToken>();
  updates = 0;
  meanwhile: ((current: StoredToken) => StoredToken | undefined) | undefined;
  alwaysConflict = false;

  async create(token: StoredToken) {
    this.rows.set(token.id, token);
    return { status: 'created' as const };
  }

  async findById(_tenantId: string, id: string) {
    return this.rows.get(id);
  }

  async update(token: StoredToken): Promise<UpdateTokenOutcome> {
    this.updates++;
    const other = this.meanwhile;
    this.meanwhile = undefined;
    if (other) this.replace(token.id, other(this.rows.get(token.id)!));
    const current = this.rows.get(token.id);
    if (!current) return { status: 'gone' };
    if (this.alwaysConflict || current.version !== token.version) return { status: 'conflict' };
    this.rows.set(token.id, { ...token, version: token.version + 1 });
    return { status: 'updated' };
  }

  async delete(_tenantId: string, id: string) {
    return this.rows.delete(id);
  }

  search = async () => ({ items: [], total: 0, page: 1, size: 1 });
  deleteExpired = async () => 0;
  eraseCvc = async () => false;
  findCvcDue = async () => [];
  // Updates never create in bulk, read many or page by cursor.
  createMany = async (): Promise<never> => {
    throw new Error('not used by updates');
  };
  findMany = async () => new Map<string, StoredToken>();
  searchAfter = async () => ({ items: [], hasMore: false });
  findByFingerprint = async () => undefined;

  private replace(id: string, next: StoredToken | undefined): void {
    if (next) this.rows.set(id, next);
    else this.rows.delete(id);
  }
}

function setUp(actor: Actor = anActor(TENANT, ['token:create', 'token:read', 'token:update', 'token:use'], 'private')) {
  const clock = new FixedClock();
  const random = new CryptoRandomSource();
  const tokens = new RacedTokens();
  const deps = {
    tokens,
    keyring: new Keyring({ dataKeys: createMemoryStoreForCore(), random, clock, masterKey: Buffer.alloc(32, 5) }),
    expressions: new ExpressionEngine({ random }),
    clock,
    ids: new SequentialIds(),
    policy: { cvcRetentionMs: 3_600_000 },
  };
  const creator = anActor(TENANT, ['token:create'], 'private');
  const create = (input: { data: unknown; containers?: string[] }) => new CreateToken(deps).execute(creator, { type: 'token', ...input });
  return { tokens, create, update: new UpdateToken(deps), actor };
}

const movedOn = (patch: Partial<StoredToken>) => (current: StoredToken): StoredToken => ({ ...current, ...patch, version: current.version + 1 });

describe('UpdateToken against concurrent writers', () => {
  it('applies the patch again to the token as another writer left it', async () => {
    const { tokens, create, update, actor } = setUp();
    const { id } = (await create({ data: { a: 1 } })).token;
    tokens.meanwhile = movedOn({ metadata: { theirs: 'yes' } });
    const view = await update.execute(actor, id, { metadata: { mine: 'yes' } });
    expect(view.token.metadata).toEqual({ theirs: 'yes', mine: 'yes' });
    expect(tokens.rows.get(id)).toMatchObject({ version: 2, metadata: { theirs: 'yes', mine: 'yes' } });
    expect(tokens.updates).toBe(2);
  });

  it('checks access again on the fresh token: one moved out of the caller’s rules meanwhile is not updated', async () => {
    const scoped: Actor = {
      ...anActor(TENANT, [], 'private'),
      rules: [{ priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:read', 'token:update'] }],
    };
    const { tokens, create, update } = setUp(scoped);
    const { id } = (await create({ data: 'x' })).token;
    tokens.meanwhile = movedOn({ containers: ['/pci/high/'] });
    await expect(update.execute(scoped, id, { metadata: { mine: 'yes' } })).rejects.toBeInstanceOf(ForbiddenError);
    expect(tokens.updates).toBe(1);
    expect(tokens.rows.get(id)).toMatchObject({ version: 1, containers: ['/pci/high/'], metadata: {} });
  });

  it('answers not found, and creates nothing, when the token was deleted meanwhile', async () => {
    const { tokens, create, update, actor } = setUp();
    const { id } = (await create({ data: 'x' })).token;
    tokens.meanwhile = () => undefined;
    await expect(update.execute(actor, id, { metadata: { mine: 'yes' } })).rejects.toBeInstanceOf(NotFoundError);
    expect(tokens.rows.has(id)).toBe(false);
  });

  it(`gives up with a conflict after ${MAX_UPDATE_ATTEMPTS} lost rounds, having written nothing`, async () => {
    const { tokens, create, update, actor } = setUp();
    const { id } = (await create({ data: 'x' })).token;
    const before = tokens.rows.get(id);
    tokens.alwaysConflict = true;
    const failure = update.execute(actor, id, { metadata: { mine: 'yes' } });
    await expect(failure).rejects.toBeInstanceOf(ConflictError);
    await expect(failure).rejects.toMatchObject({ code: 'TOKEN_UPDATE_CONFLICT' });
    expect(tokens.updates).toBe(MAX_UPDATE_ATTEMPTS);
    expect(tokens.rows.get(id)).toBe(before);
  });
});
