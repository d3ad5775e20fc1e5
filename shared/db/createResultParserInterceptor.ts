import { type Interceptor, type QueryResultRow, SchemaValidationError } from 'slonik';

/**
 * Makes `sql.type(schema)` a runtime check, not only a type: slonik hands each query's schema to the
 * interceptors and validates nothing by itself. A row that does not match is a SchemaValidationError
 * (rendered as a generic 500), never silently mistyped data.
 */
export const createResultParserInterceptor = (): Interceptor => ({
  name: 'result-parser',
  transformRow: (context, query, row) => {
    const parser = context.resultParser;
    if (parser === undefined) {
      return row;
    }
    const result = parser['~standard'].validate(row);
    if (result instanceof Promise) {
      throw new TypeError('row schemas must be synchronous');
    }
    if (result.issues !== undefined) {
      throw new SchemaValidationError(query, row, result.issues);
    }
    return result.value as QueryResultRow;
  },
});
