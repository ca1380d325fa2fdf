import type { TestProject } from 'vitest/node'

import { provideMigratedDatabase } from '../local-stack/testing/global-setup'

/** The database project's one migrated database per run, as the local stack's tests have it. */
export default function setup(project: TestProject) {
  return provideMigratedDatabase(project, 'app')
}
