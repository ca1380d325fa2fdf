/** An SDK's response types (`.d.ts`), loaded to check emulator JSON: the SDKs validate nothing. */
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import ts from 'typescript'

const here = path.dirname(fileURLToPath(import.meta.url))

export interface SdkTypes {
  checker: ts.TypeChecker
  get(name: string): ts.Type
}

/** Compiles `declarations` (`export type Name = …` lines) as a file of this folder. */
export function loadSdkTypes(declarations: string): SdkTypes {
  const fileName = path.join(here, '__sdk_types__.ts')
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const fileExists = host.fileExists.bind(host)
  host.readFile = (name) => (name === fileName ? declarations : readFile(name))
  host.fileExists = (name) => name === fileName || fileExists(name)
  const program = ts.createProgram([fileName], options, host)
  const problems = ts
    .getPreEmitDiagnostics(program, program.getSourceFile(fileName))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
  if (problems.length > 0) throw new Error(`SDK types do not compile:\n${problems.join('\n')}`)
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(fileName)
  const exported = new Map<string, ts.Type>()
  for (const statement of source?.statements ?? []) {
    if (ts.isTypeAliasDeclaration(statement)) {
      exported.set(statement.name.text, checker.getTypeAtLocation(statement.name))
    }
  }
  return {
    checker,
    get(name) {
      const type = exported.get(name)
      if (!type) throw new Error(`No exported type ${name} in the SDK declarations`)
      return type
    },
  }
}
