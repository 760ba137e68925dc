import { closeHarnessStores } from './harness';

afterAll(closeHarnessStores);
