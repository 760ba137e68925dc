import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import type { ApplicationDocument, ApplicationKeyDocument } from './application-document';
import { compact } from './documents';
import { errorCode } from './mongo-errors';

/** An application document as svc wrote it before applications had several keys: its one key in `key_hash`. */
interface SingleKeyApplicationDocument {
  _id: string;
  key_hash?: string;
  keys?: ApplicationKeyDocument[];
  created_by?: string | null;
  created_at: Date;
}

/** The unique index on the single key, replaced by `applications_by_key_hash` on `keys.key_hash`. */
const SINGLE_KEY_INDEX = 'applications_by_key';
/** NamespaceNotFound (no collection yet) and IndexNotFound (dropped before, by this process or another). */
const NOTHING_TO_DROP = new Set([26, 27]);

/**
 * Moves each application's one key into its `keys` array, so keys issued before several keys per application keep
 * working: the key gets a new random id, and the application's creation as its own. The old unique index goes first:
 * with it, the second document whose `key_hash` is removed would collide with the first on a missing value. Each
 * document is converted by one update conditional on its `key_hash`, so several processes starting together convert
 * it once, and a start that was interrupted finishes the work on the next one. Runs before the indexes are created.
 */
export async function migrateApplicationKeys(applications: Collection<ApplicationDocument>): Promise<void> {
  try {
    await applications.dropIndex(SINGLE_KEY_INDEX);
  } catch (error) {
    const code = errorCode(error);
    if (code === undefined || !NOTHING_TO_DROP.has(code)) throw error;
  }
  const legacy = applications as unknown as Collection<SingleKeyApplicationDocument>;
  const pending = legacy.find({ key_hash: { $exists: true } }, { projection: { _id: 1, key_hash: 1, created_by: 1, created_at: 1 } });
  for await (const doc of pending) {
    const key = compact<ApplicationKeyDocument>({ id: randomUUID(), key_hash: doc.key_hash!, created_by: doc.created_by ?? undefined, created_at: doc.created_at });
    await legacy.updateOne({ _id: doc._id, key_hash: doc.key_hash! }, { $set: { keys: [key] }, $unset: { key_hash: '' } });
  }
}
