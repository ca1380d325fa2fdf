/** The HTTP toolkit the Supabase, Stripe and Polar emulators share (see ../README.md). */
export * from './body'
export * from './delivery'
export * from './faults'
export * from './respond'
export * from './routes'
