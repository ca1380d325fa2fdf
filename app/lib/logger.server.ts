type Level = 'debug' | 'info' | 'warn' | 'error'
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }

function threshold(): number {
  const level = (process.env.LOG_LEVEL ?? 'info') as Level
  return ORDER[level] ?? ORDER.info
}

function write(level: Level, message: string, fields?: Record<string, unknown>) {
  if (ORDER[level] < threshold()) return
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })
  if (level === 'error' || level === 'warn') console.error(line)
  else console.log(line)
}

/** Structured, one-line JSON logs (what hosting platforms index). Never log secrets. */
export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
}
