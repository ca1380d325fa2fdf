type Level = 'debug' | 'info' | 'warn' | 'error'
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }

function threshold(): number {
  const level = (process.env.LOG_LEVEL ?? 'info') as Level
  return ORDER[level] ?? ORDER.info
}

/** An Error as JSON keeps nothing (`{}`): its name, message and stack are written instead. */
function loggable(value: unknown): unknown {
  if (!(value instanceof Error)) return value
  return { name: value.name, message: value.message, stack: value.stack }
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}) {
  if (ORDER[level] < threshold()) return
  const entries = Object.entries(fields).map(([name, value]) => [name, loggable(value)])
  const line = JSON.stringify({
    time: new Date().toISOString(),
    level,
    message,
    ...Object.fromEntries(entries),
  })
  if (level === 'error' || level === 'warn') console.error(line)
  else console.log(line)
}

/**
 * The one logger of the server code: structured, one-line JSON logs (what hosting platforms
 * index), at or above LOG_LEVEL (default `info`). Never log secrets. ESLint refuses
 * `console` elsewhere in app/ (eslint.config.js).
 */
export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
}
