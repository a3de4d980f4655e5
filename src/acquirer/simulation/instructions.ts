// What the sandbox simulator is told about an attempt in a flow that exists only in the simulation
// (the banking app behind a QR code, the internet bank, the wallet sheets, points, installment):
// the customer's answer there. It travels to the acquirer sealed in AuthoriseRequest.simulation, a
// field a real connector cannot read (its type is opaque); only the simulator opens it.
import type { SimulatorNote } from '../acquirer.ts';
import { DELAYED_OUTCOME_MINUTES } from './test-cards.ts';

/** The customer's answer in a simulated flow, as the domain knows it. */
export interface SimulatedAnswer {
  outcome: 'approve' | 'decline';
  /** Result code of a decline (default decline_general). */
  declineCode?: string;
  /** The simulated bank answers DELAYED_OUTCOME_MINUTES of sandbox time later. */
  later?: boolean;
}

/** What the simulator does with it. */
export interface SimulatorInstructions {
  outcome: 'approve' | 'decline';
  declineCode?: string;
  /** The answer comes only this many seconds of business time later; until then the attempt is pending. */
  delaySeconds?: number;
}

// The note is the instructions object itself; only its type is hidden from connectors.
export const sealAnswer = (a: SimulatedAnswer): SimulatorNote =>
  ({
    outcome: a.outcome,
    ...(a.declineCode ? { declineCode: a.declineCode } : {}),
    ...(a.later ? { delaySeconds: DELAYED_OUTCOME_MINUTES * 60 } : {}),
  }) satisfies SimulatorInstructions as unknown as SimulatorNote;

export const openNote = (note: SimulatorNote | undefined): SimulatorInstructions | undefined =>
  note as unknown as SimulatorInstructions | undefined;
