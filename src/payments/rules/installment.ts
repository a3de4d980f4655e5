// Installment products (method 8): what the customer's application lists.
import type { Violations } from '../../errors/gateway-error.ts';
import { amount, plainText } from './fields.ts';
import { POLICY } from './policy.ts';

export interface InstallmentProduct {
  name: string | null;
  /** Minor units. */
  price: number;
  quantity: number;
}

/** The products in minor units, or null when any of them is invalid. */
export function installmentProducts(
  v: Violations,
  input: { name?: string; price: number | string; quantity: number }[],
  maxAmountMinor: number,
): InstallmentProduct[] | null {
  if (input.length > POLICY.installmentProductsMax)
    v.add('installmentProducts', `must have at most ${POLICY.installmentProductsMax} products`);
  const out: InstallmentProduct[] = [];
  input.forEach((prod, i) => {
    const price = amount(v, `installmentProducts[${i}].price`, prod.price, { min: 1, max: maxAmountMinor });
    let ok = price !== null;
    if (!Number.isInteger(prod.quantity) || prod.quantity < 1 || prod.quantity > POLICY.installmentQuantityMax) {
      ok = false;
      v.add(`installmentProducts[${i}].quantity`, `must be an integer from 1 to ${POLICY.installmentQuantityMax}`);
    }
    if (
      prod.name !== undefined &&
      plainText(v, `installmentProducts[${i}].name`, prod.name, POLICY.installmentNameMaxLength) === null
    )
      ok = false;
    if (ok) out.push({ name: prod.name ?? null, price: price!, quantity: prod.quantity });
  });
  return out.length === input.length ? out : null;
}
