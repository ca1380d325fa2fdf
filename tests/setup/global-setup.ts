/** Vitest global setup: prepares shared test resources once per run. */
export default async function setup() {}
