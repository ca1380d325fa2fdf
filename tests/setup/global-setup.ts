import type { TestProject } from 'vitest/node'

import { provideMigratedDatabase } from '../local-stack/testing/global-setup'

/**
 * Vitest global setup of the database project (tests/db, tests/integration): one migrated
 * database per run, as the local stack's own tests have it (tests/local-stack/testing).
 */
export default function setup(project: TestProject) {
  return provideMigratedDatabase(project, 'app')
}
