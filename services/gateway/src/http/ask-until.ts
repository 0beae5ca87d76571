/**
 * How long an owner's answer waits for a service that follows its events (read-your-writes, issue
 * #20), and how often it asks that service whether it has.
 */
const followerWait = { totalMs: 3000, everyMs: 15 };

/**
 * Asks `followed` every 15 ms until it says yes or 3 s have passed; answers whether it said yes.
 * An error it throws ends the wait with that error.
 */
export async function askUntil(followed: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + followerWait.totalMs;
  for (;;) {
    if (await followed()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, followerWait.everyMs));
  }
}
