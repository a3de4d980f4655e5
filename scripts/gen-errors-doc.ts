// Writes docs/ERRORS.md from the error catalogue (src/errors/catalogue.ts). A test fails when it is stale.
import fs from 'node:fs';
import { errorsMarkdown } from '../src/errors/errors-doc.ts';

fs.writeFileSync(new URL('../docs/ERRORS.md', import.meta.url), errorsMarkdown());
console.log('docs/ERRORS.md written');
