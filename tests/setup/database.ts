// The suites clone the run's migrated database (./global-setup.ts) as the local stack's own
// tests do, with the stack's helper.
export { createTestDatabase } from '../local-stack/testing/database'
