import { Type } from 'typebox';
import { EXAMPLES } from '../api/examples.ts';
import { Decimal } from '../api/schemas.ts';
import { checkoutMethods } from '../payments/methods.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

const settingsProperties = {
  name: Type.Optional(Type.String()),
  status: Type.Optional(Type.String({ description: 'active or suspended' })),
  currencies: Type.Optional(Type.Array(Type.String(), { description: 'Subset of GEL, USD, EUR' })),
  methods: Type.Optional(Type.Array(Type.Integer(), { description: `Subset of ${checkoutMethods().join(', ')}` })),
  splitEnrolled: Type.Optional(Type.Boolean()),
  saveCardEnabled: Type.Optional(Type.Boolean()),
  defaultCallbackUrl: Type.Optional(NullableString),
  callbackUrlPrefixes: Type.Optional(Type.Array(Type.String())),
  testMode: Type.Optional(Type.Boolean()),
  testAmountLimit: Type.Optional(Decimal),
  brandColor: Type.Optional(NullableString),
  logoUrl: Type.Optional(NullableString),
  profile: Type.Optional(
    Type.String({ description: 'karibche (default) or bank: answer as the real bank does (docs/bank-profile.md)' }),
  ),
  transactionLimit: Type.Optional(
    Type.Union([Type.Number(), Type.String()], { description: 'Bank profile: largest GEL payment (default 3000.00)' }),
  ),
  dailyLimit: Type.Optional(
    Type.Union([Type.Number(), Type.String()], {
      description: 'Bank profile: GEL volume per business day (default 10000.00)',
    }),
  ),
};

export const MerchantSettingsBody = Type.Object(settingsProperties, { examples: [EXAMPLES.merchantSettingsBody] });
export const CreateMerchantBody = Type.Object(
  { ...settingsProperties, name: Type.String() },
  { examples: [EXAMPLES.createMerchantBody] },
);

export const MerchantView = Type.Object(
  {
    clientId: Type.String(),
    name: Type.String(),
    status: Type.String(),
    currencies: Type.Array(Type.String()),
    methods: Type.Array(Type.Integer()),
    splitEnrolled: Type.Boolean(),
    saveCardEnabled: Type.Boolean(),
    defaultCallbackUrl: NullableString,
    callbackUrlPrefixes: Type.Array(Type.String()),
    testMode: Type.Boolean(),
    testAmountLimit: Type.Number(),
    brandColor: NullableString,
    logoUrl: NullableString,
    profile: Type.String(),
    transactionLimit: Type.Number(),
    dailyLimit: Type.Number(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { examples: [EXAMPLES.merchant] },
);

export const Credentials = Type.Object(
  {
    clientId: Type.String(),
    clientSecret: Type.String(),
    apiKey: Type.String(),
    callbackSecret: Type.String(),
  },
  { examples: [EXAMPLES.credentials] },
);

export const ClientIdParams = Type.Object({ clientId: Type.String() });

export const CreateUserBody = Type.Object({
  email: Type.String({ description: 'The user signs in with it; unique across merchants' }),
  password: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: '12 to 200 characters; omitted: one is generated and returned once',
    }),
  ),
});

export const CreatedUser = Type.Object({
  user: Type.Object({ clientId: Type.String(), email: Type.String(), createdAt: Type.String() }),
  password: Type.Union([Type.String(), Type.Null()], {
    description: 'The generated password (shown only now), or null when one was given',
  }),
});
