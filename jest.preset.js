// Shared jest configuration: ts-jest compiles TypeScript per file (type checking is the build's job),
// and workspace packages resolve to their sources so tests never run against a stale build.
const path = require('node:path');

const root = __dirname;

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(root, 'tsconfig.jest.json') }],
  },
  moduleNameMapper: {
    '^@svc/core$': path.join(root, 'packages/core/src/index.ts'),
    '^@svc/core/testing$': path.join(root, 'packages/core/testing/index.ts'),
    '^@svc/memory$': path.join(root, 'packages/memory/src/index.ts'),
    '^@svc/sqlite$': path.join(root, 'packages/sqlite/src/index.ts'),
    '^@svc/mail$': path.join(root, 'packages/mail/src/index.ts'),
    '^@svc/mongo$': path.join(root, 'packages/mongo/src/index.ts'),
    '^@svc/outbound$': path.join(root, 'packages/outbound/src/index.ts'),
    '^@svc/outbound/testing$': path.join(root, 'packages/outbound/testing/index.ts'),
  },
  testMatch: ['**/?(*.)test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};
