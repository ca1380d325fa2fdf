/**
 * The fixed loopback ports of the tools that `npm test` and `npm run bench` start (the soak,
 * the chaos soak, the bench) beside the browser tests' own (tests/e2e/ports.ts). Each tool
 * adds its `--port-offset` (or reads its BENCH_*_PORT variables) to move them.
 *
 * Every one lies below 32768, outside the range Linux gives outgoing connections their local
 * ports from (net.ipv4.ip_local_port_range, 32768–60999 by default): a fixed port inside that
 * range can be held by any client connection, or one in TIME_WAIT (a test's connection to
 * PostgreSQL, say), and the server that wants it then fails with EADDRINUSE.
 */
export const TOOL_PORTS = {
  bench: { app: 4900, bare: 4901, stripe: 12900, polar: 12910, supabase: 12920 },
  /** tools/bench/mixed.ts: two instances behind a balancer, and the bare app. */
  mixed: {
    instances: [4985, 4986],
    balancer: 4987,
    bare: 4988,
    stripe: 13000,
    polar: 13010,
    supabase: 13020,
  },
  soak: { app: 4950, stripe: 12950, polar: 12960, supabase: 12940 },
  chaos: {
    instances: [4970, 4971],
    balancer: 4972,
    stripe: 12970,
    polar: 12980,
    supabase: 12990,
  },
} as const

/** The first local port Linux gives an outgoing connection by default. */
export const EPHEMERAL_PORTS_START = 32768
