/**
 * The least lead, ms. An echo may reach the microphone a little before the player's clock says
 * it sounded (the delay is then estimated at about zero): the reference is read ahead of the
 * capture time by the lead, so the filter still holds it, and a delay that jitters around zero
 * is followed rather than re-aligned on every estimate.
 */
const MIN_LEAD_MS = 5;

/**
 * How much earlier than the estimated delay the reference is read: the configured lead, or half
 * the delay when the delay is shorter than twice the lead, and never below MIN_LEAD_MS.
 */
export function leadFor(delayMs: number, leadMs: number): number {
  return Math.min(leadMs, Math.max(MIN_LEAD_MS, delayMs / 2));
}
