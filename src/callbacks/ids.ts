/** The X-Callback-Id of a payment event: stable across retries and redeliveries. */
export const callbackId = (eventId: number) => `evt_${eventId}`;
