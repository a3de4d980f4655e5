import { randomBytes } from 'node:crypto';

/** 128 random bits, lowercase hex: unguessable and URL-safe. */
export const newPayId = () => randomBytes(16).toString('hex');
/** Saved-card identifier, same strength as payIds. */
export const newRecId = () => randomBytes(16).toString('hex');

const ID = /^[0-9a-f]{32}$/;
/** Cheap shape check so malformed ids never reach the database. */
export const isWellFormedId = (id: string) => ID.test(id);
