const base = {
  ...require('../../jest.preset.js'),
  setupFiles: ['reflect-metadata'],
  setupFilesAfterEnv: ['<rootDir>/test/close-stores.ts'],
};

// The HTTP suite runs twice: on the store the environment names (memory, or MongoDB with SVC_TEST_STORE=mongo), and
// on SQLite opened exclusively as `svc serve` opens it, so authentication goes through its remembered keys.
module.exports = {
  projects: [
    { ...base, displayName: 'http' },
    {
      ...base,
      displayName: 'http on sqlite',
      setupFiles: [...base.setupFiles, '<rootDir>/test/on-sqlite.ts'],
      testPathIgnorePatterns: [...base.testPathIgnorePatterns, '(process|server|readme|shutdown|client-errors)\\.test\\.ts'],
    },
  ],
};
