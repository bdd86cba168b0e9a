import * as z from 'zod';
import { ExternalKey, commonSettings } from '../settings.js';
import type { SourceSettingsKind } from '../types.js';
import { lazySchema } from '../../schema/index.js';

/** A POS source's settings (SOURCES_CONFIG), apart from its webhook parsing: what non-intake functions read. */
export const PosSettings = lazySchema(() =>
  z
    .object({
      /** The external key a member card number is looked up by. */
      externalKey: ExternalKey.default('pos_card'),
      /** Further external keys the POS may name explicitly (`customer.externalKey`). */
      allowedExternalKeys: z.array(ExternalKey).default([]),
      ...commonSettings(),
      /** How far the signature timestamp may be from now, either way (replay window). */
      timestampToleranceSeconds: z.number().int().positive().max(86_400).default(300),
    })
    .strict(),
);
export type PosSettings = z.infer<typeof PosSettings>;

/** The settings side of the pos source (its webhook.ts adds the parsing). */
export const posSettingsKind: SourceSettingsKind<PosSettings> = {
  kind: 'pos',
  settingsSchema: PosSettings,
};
