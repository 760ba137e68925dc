module.exports = { ...require('../../jest.preset.js'), setupFiles: ['reflect-metadata'] };
