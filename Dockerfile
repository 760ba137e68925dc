# svc in a container: the embedded SQLite store in the /data volume, or MongoDB with MONGODB_URI (compose.yaml).
# Not built on the project's own machines (they have no Docker engine): kept minimal; see docs/operations.md.

# Build: the whole workspace (npm ci builds it, through `prepare`), then only the production dependencies.
FROM node:20-slim AS build
WORKDIR /app
# better-sqlite3 compiles against Node's headers when no prebuilt binary fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json turbo.json tsconfig.base.json ./
COPY packages ./packages
COPY apps ./apps
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

# Run: the built workspace only, as the unprivileged `node` user, data in a volume.
FROM node:20-slim
ENV NODE_ENV=production \
    SVC_HOST=0.0.0.0 \
    SVC_PORT=8080 \
    SVC_DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=32", "apps/http/dist/src/bin/svc.js"]
CMD ["serve"]
