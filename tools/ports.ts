/**
 * The tools' fixed loopback ports (moved by `--port-offset`), all below 32768: Linux gives
 * outgoing connections local ports from 32768–60999, so a fixed port there can be held by any
 * client connection or one in TIME_WAIT, and the server that wants it fails with EADDRINUSE.
 */
export const TOOL_PORTS = {
  bench: { app: 4900, bare: 4901, stripe: 12900, polar: 12910, supabase: 12920 },
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
