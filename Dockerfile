# syntax=docker/dockerfile:1
# cihub (Hub Pool) in a container. docs/deploy.md walks through running it.
#
# Stage 1 compiles the TypeScript and builds the dashboard (web/ into web/dist) with every
# dependency; stage 2 installs the runtime
# dependencies alone (no node-llama-cpp: it is a development dependency, and a Hub needs
# nothing bound to one platform), so the image runs on linux/amd64 and linux/arm64 alike.

FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY web ./web
# --ignore-scripts: node-llama-cpp's install step would fetch a binary the build does not need.
# It also skips `prepare`, which is what builds the dashboard on an ordinary `npm install`, so
# build:web runs here by name.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 \
 && npx tsc -p tsconfig.json \
 && npm run build:web

FROM node:20-bookworm AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only; better-sqlite3 is the one native addon and is built (or fetched
# prebuilt) for this image's architecture.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3

FROM node:20-bookworm-slim
# jemalloc allocates in place of glibc, and its background thread hands freed pages back to the
# system while the Hub sits idle: a minute after 1,000 streams through a paired Hub, RSS was
# 81-82 MB (11-12% over idle) with it and 95-99 MB (34-36% over) with glibc's two arenas, three
# soaks each; bench/README.md, 2026-12-04, has the CPU figures. LD_PRELOAD names the library
# bare, so the loader finds it in this image's library directory on amd64 and arm64 alike.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjemalloc2 \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    CIHUB_DATA_DIR=/data \
    HUB_HOST=0.0.0.0 \
    API_PORT=5002 \
    OLLAMA_URL=http://host.docker.internal:11434 \
    VLLM_URL=http://host.docker.internal:8000 \
    LEMONADE_URL=http://host.docker.internal:13305 \
    OMLX_URL=http://host.docker.internal:8000 \
    LD_PRELOAD=libjemalloc.so.2 \
    MALLOC_CONF=background_thread:true
WORKDIR /app
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
# The Hub serves the dashboard from web/dist beside dist/ (src/dashboard/web-assets.ts), so
# /app/web/dist here; without it GET / answers 503 HUB_ERR_DASHBOARD_NOT_BUILT.
COPY --from=build /src/web/dist ./web/dist
COPY package.json ./
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
# The node image's unprivileged user (uid 1000); the Hub never needs root.
USER node
VOLUME ["/data"]
EXPOSE 5002
# Readiness, not liveness: a draining Hub (after SIGTERM) reports unhealthy, so nothing routes to it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.API_PORT || 5002) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/cihub"]
CMD ["serve"]
