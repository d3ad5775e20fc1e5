import type { SchemaElement } from 'hyparquet-writer';
import type { FieldSpec } from '../engine/fieldSpec.ts';

/**
 * A record field as the Parquet writer reads it: the engine's field metadata, plus `nullable` for a field
 * whose slot may hold no value (engine 3's `scenario_event`, null outside a scenario event). Optional here
 * so the writer serves the engines that predate the flag unchanged.
 */
export type ParquetField = FieldSpec & { readonly nullable?: boolean };

/**
 * The file's schema: one column per record field, in the catalog's order
 * (docs/bulk-data.md#what-the-file-holds). Integer fields are INT64, decimal fields DOUBLE (the JSON number's
 * value), enum fields UTF-8 byte arrays, engine 4's event_time an INT64 TIMESTAMP(MILLIS, UTC) (the instant
 * JSON and CSV print as ISO 8601 text; 8 bytes a record where the text took 24; docs/formats.md). A nullable
 * field is OPTIONAL (its nulls live in definition levels), every other field REQUIRED, so readers type the
 * columns as non-null where the records can have no null.
 */
export const parquetSchema = (fields: readonly ParquetField[]): SchemaElement[] => [
  { name: 'schema', num_children: fields.length },
  ...fields.map((field): SchemaElement => {
    const repetition_type = field.nullable === true ? 'OPTIONAL' : 'REQUIRED';
    switch (field.kind) {
      case 'integer':
        return { name: field.name, type: 'INT64', repetition_type };
      case 'decimal':
      case 'float':
        return { name: field.name, type: 'DOUBLE', repetition_type };
      case 'timestamp':
        // Milliseconds since the epoch, UTC: the logical type for current readers, the converted type for
        // fastparquet (docs/formats.md).
        return {
          name: field.name,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
          repetition_type,
        };
      case 'enum':
        return { name: field.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' }, repetition_type };
    }
  }),
];
