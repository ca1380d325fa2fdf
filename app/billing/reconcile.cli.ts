/** `npm run billing:reconcile`: flags and exit codes in docs/operations.md, "Reconciliation". */
import { parseArgs } from 'node:util'

import { errorText, startCommand } from '~/commands.server'

import { type ProviderReport, reconcileProvider } from './reconcile.server'
import { billingProviders } from './registry.server'

startCommand()

const USAGE = 'Usage: npm run billing:reconcile -- [--check] [--full] [--provider <id>]'

function parse() {
  try {
    const flag = { type: 'boolean', default: false } as const
    const options = { check: flag, full: flag, provider: { type: 'string' } } as const
    const { values } = parseArgs({ options })
    const running = billingProviders().map((provider) => provider.id)
    return { ...values, providers: values.provider ? [values.provider] : running }
  } catch (error) {
    console.error(`${errorText(error)}\n${USAGE}`)
    process.exit(1)
  }
}

function print(report: ProviderReport, check: boolean) {
  const { lastEvent: last } = report
  const seen = last ? `${last.type} ${last.id}, received ${last.receivedAt}` : 'none'
  console.log(`${report.provider}: last event in the ledger ${seen}`)
  console.log(
    `${report.provider}: ${report.since ? `changed since ${report.since}` : 'everything'}: ${report.subscriptions} subscriptions, ${report.users} users, ${report.differences.length} ${check ? 'differ' : 'reconciled'}, ${report.missingPayments.length} payments missing`,
  )
  for (const { userId, subscriptionId, changes, result } of report.differences)
    console.log(
      `  user ${userId} subscription ${subscriptionId}: ${changes.join('; ')}${result ? ` → ${result}` : ''}`,
    )
  for (const problem of report.problems) console.log(`  ${report.provider}: ${problem}`)
  for (const { id, result } of report.missingPayments)
    console.log(`  payment ${id}: not in the ledger${result ? ` → ${result}` : ''}`)
}

const { check, full, providers } = parse()
let differences = 0
try {
  for (const provider of providers) {
    const report = await reconcileProvider(provider, { check, full })
    print(report, check)
    differences +=
      report.differences.length + report.problems.length + report.missingPayments.length
  }
} catch (error) {
  console.error(`Reconciliation failed: ${errorText(error)}`)
  process.exit(1)
}
process.exit(check && differences > 0 ? 2 : 0)
