import { Type } from 'typebox';
import { Decimal } from '../api/schemas.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

const settingsProperties = {
  name: Type.Optional(Type.String()),
  status: Type.Optional(Type.String({ description: 'active or suspended' })),
  currencies: Type.Optional(Type.Array(Type.String(), { description: 'Subset of GEL, USD, EUR' })),
  methods: Type.Optional(Type.Array(Type.Integer(), { description: 'Subset of 4, 5, 7, 8, 9, 14' })),
  splitEnrolled: Type.Optional(Type.Boolean()),
  saveCardEnabled: Type.Optional(Type.Boolean()),
  defaultCallbackUrl: Type.Optional(NullableString),
  callbackUrlPrefixes: Type.Optional(Type.Array(Type.String())),
  testMode: Type.Optional(Type.Boolean()),
  testAmountLimit: Type.Optional(Decimal),
  brandColor: Type.Optional(NullableString),
  logoUrl: Type.Optional(NullableString),
};

export const MerchantSettingsBody = Type.Object(settingsProperties);
export const CreateMerchantBody = Type.Object({ ...settingsProperties, name: Type.String() });

export const MerchantView = Type.Object({
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
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const Credentials = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.String(),
  apiKey: Type.String(),
  callbackSecret: Type.String(),
});

export const ClientIdParams = Type.Object({ clientId: Type.String() });
