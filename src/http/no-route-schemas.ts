/**
 * Fastify's schema compilers, replaced by ones that refuse. The Hub gives no route a Fastify
 * schema: bodies are parsed with zod (body-schema.ts) and answers are sent as built. Fastify
 * requires its default compilers (ajv with its formats, fast-json-stringify) when the server is
 * created whether or not a route ever uses them; passing these instead keeps 113 modules (580 KB
 * of source) out of the process: a lone idle Hub's RSS went from 78.8 to 74.7 MiB (median of
 * five, bench/README.md, 2026-12-02 08:06).
 * A route given a schema makes the server fail to start, saying why, rather than go unchecked.
 */
import type { FastifyServerOptions } from 'fastify';

function refuse(): never {
  throw new Error('Fastify route schemas are not compiled on this Hub: validate the body with zod (src/http/body-schema.ts)');
}

export const NO_ROUTE_SCHEMAS: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildValidator: () => refuse,
    buildSerializer: () => refuse,
  },
};
