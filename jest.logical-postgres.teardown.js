module.exports = require('./jest.logical-postgres').teardown;
