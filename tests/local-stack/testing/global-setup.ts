import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'
import type { TestProject } from 'vitest/node'

import { dumpDatabaseImage, migrate, openDatabase, withDatabaseName } from '../database'

declare module 'vitest' {
  export interface ProvidedContext {
    /** PGlite: path of a migrated database image that each test file starts from. */
    databaseImagePath: string
    /** PostgreSQL server: URL of the server and name of the migrated template database. */
    databaseServerUrl: string
    databaseTemplate: string
  }
}

/**
 * One migrated database per run, cloned by each test file (`createTestDatabase`): a PGlite
 * image, or a template on DATABASE_URL's server; `label` keeps two projects' apart.
 */
export async function provideMigratedDatabase(project: TestProject, label: string) {
  const serverUrl = process.env.DATABASE_URL
  if (serverUrl) {
    const template = `${label}_test_template_${process.pid}`
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    await admin.query(`drop database if exists ${template}`)
    await admin.query(`create database ${template}`)
    const db = await openDatabase({ url: withDatabaseName(serverUrl, template) })
    await migrate(db)
    await db.close()
    project.provide('databaseServerUrl', serverUrl)
    project.provide('databaseTemplate', template)
    project.provide('databaseImagePath', '')
    return async () => {
      await admin.query(`drop database if exists ${template} with (force)`).catch(() => {})
      await admin.end()
    }
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), `${label}-test-db-`))
  const db = await openDatabase()
  await migrate(db)
  const image = await dumpDatabaseImage(db)
  await db.close()
  const imagePath = path.join(dir, 'migrated.tar')
  await writeFile(imagePath, Buffer.from(await image.arrayBuffer()))
  project.provide('databaseImagePath', imagePath)
  project.provide('databaseServerUrl', '')
  project.provide('databaseTemplate', '')
  return async () => {
    await rm(dir, { recursive: true, force: true })
  }
}

export default function setup(project: TestProject) {
  return provideMigratedDatabase(project, 'stack')
}
