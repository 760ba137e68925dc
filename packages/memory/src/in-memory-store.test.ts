import { describeStoreContract } from '@svc/core/testing';
import { createMemoryStore } from './in-memory-store';

describeStoreContract('memory', async () => createMemoryStore());
