import { buildOpenApiDocument } from './api/openapi/buildOpenApiDocument.ts';
console.log(JSON.stringify(buildOpenApiDocument({} as never), null, 1));
