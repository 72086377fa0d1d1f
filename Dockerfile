# The scheduler's worker and API image (docker-compose.yml runs it twice, once per role): the package built
# to JavaScript (`npm run build`, as `npm pack` does) in one stage, run with production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY scripts/toolchain.mjs scripts/toolchain.d.mts ./scripts/
COPY --from=build /app/dist ./dist
ENV NODE_ENV=production \
    SCHEDULER_API_HOST=0.0.0.0 \
    SCHEDULER_DATA_DIR=/var/lib/durable-scheduler
USER node
# TEMPORAL_ADDRESS must name the cluster: the image never starts an embedded dev server.
CMD ["node", "dist/main.js"]
