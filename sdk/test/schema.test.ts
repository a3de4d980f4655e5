// The committed sdk/src/schema.d.ts must be what openapi-typescript makes of the gateway's current
// /openapi.json: a route schema changed without `npm run sdk:types` fails here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { SCHEMA_FILE, sdkTypes } from '../../scripts/sdk-types.ts';

it('sdk/src/schema.d.ts is generated from the current OpenAPI document (run npm run sdk:types)', {
  timeout: 120_000,
}, async () => {
  const fresh = await sdkTypes();
  assert.ok(
    fresh.includes('"/v1/gateway/events"') && fresh.includes('"/v1/gateway/payments/{payId}"'),
    'the document has the merchant API',
  );
  assert.equal(fs.readFileSync(SCHEMA_FILE, 'utf8'), fresh, 'sdk/src/schema.d.ts is stale: run npm run sdk:types');
});
