# The scheduler's worker and API image (docker-compose.yml runs it twice, once per role).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
ENV NODE_ENV=production \
    SCHEDULER_API_HOST=0.0.0.0 \
    SCHEDULER_DATA_DIR=/var/lib/durable-scheduler
USER node
# TEMPORAL_ADDRESS must name the cluster: the image never starts an embedded dev server.
CMD ["node", "--import", "tsx", "src/main.ts"]
