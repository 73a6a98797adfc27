/**
 * Process-wide shutdown state. Lifecycle marks it before it stops the roles, so readiness can turn
 * the load balancer away at once while in-flight requests still finish; the api role marks it too,
 * because its stop() may be called without lifecycle.
 */
let shuttingDown = false;

export function markShuttingDown(): void {
  shuttingDown = true;
}

export function isShuttingDown(): boolean {
  return shuttingDown;
}
