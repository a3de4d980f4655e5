// What a customer chose and typed — on the checkout page's forms or through the sandbox simulate
// endpoint — checked by the chosen method's module and turned into the attempt the domain runs.
import type { AttemptDetails } from './methods/index.ts';
import { methodOf } from './methods/index.ts';
import type { ChoiceCheck as MethodChoiceCheck, ChoiceInput } from './methods/method.ts';

export type { ChoiceInput } from './methods/method.ts';

export type ChoiceCheck = MethodChoiceCheck<AttemptDetails>;

/** `cardMonth`: the current year and month in the gateway's time zone (cards expire by month). */
export function checkChoice(
  method: number,
  input: ChoiceInput,
  cardMonth: { year: number; month: number },
): ChoiceCheck {
  const m = methodOf(method);
  // A registered method's data is its own (the registry's MethodData lists the built-in ones).
  return m ? (m.choose(input, { cardMonth }) as ChoiceCheck) : { ok: false, unknownMethod: true };
}
