module.exports = require('./jest.logical-postgres').setup;
