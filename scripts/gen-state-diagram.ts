// Writes docs/guides/payment-states.svg from the payment state machine. A test fails when it is stale.
import fs from 'node:fs';
import { stateDiagramSvg } from '../src/docs/diagram.ts';

fs.writeFileSync(new URL('../docs/guides/payment-states.svg', import.meta.url), stateDiagramSvg());
console.log('docs/guides/payment-states.svg written');
