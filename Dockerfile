# The scheduler's worker and API image (docker-compose.yml runs it twice, once per role;
# deploy/kubernetes/ runs it as two Deployments): the package built to JavaScript (`npm run build`, as
# `npm pack` does) in one stage, run with production dependencies only.
#
# Node 24 ("Krypton", LTS; security fixes until 2028-04-30, nodejs/Release schedule.json). Node 20 reached
# its end of life on 2026-04-30 and Node 22 reaches it on 2027-04-30; package.json's `engines` names the
# lines the unit and workflow suites pass on (22, 24, 26). Debian 13 (trixie): the current Debian stable.
# Pin a digest (node:24-trixie-slim@sha256:…) in a registry you control to make builds reproducible.
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:24-trixie-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY scripts/toolchain.mjs scripts/toolchain.d.mts ./scripts/
COPY --from=build /app/dist ./dist
# Nothing is written under SCHEDULER_DATA_DIR in production (only `npm start`'s development key and
# embedded dev server live there), so the directory need not exist and the root file system can be
# read-only (deploy/kubernetes/ runs it so).
ENV NODE_ENV=production \
    SCHEDULER_API_HOST=0.0.0.0 \
    SCHEDULER_DATA_DIR=/var/lib/durable-scheduler
# Secrets never enter the image, neither as files nor as ENV: every credential is a file mounted at run
# time (compose `secrets:` under /run/secrets/, docker-compose.secured.yml; Kubernetes Secret volumes,
# deploy/kubernetes/) and named by a variable:
#   TEMPORAL_ADDRESS                  host:port of the Temporal frontend; required: the image never starts
#                                     an embedded dev server
#   TEMPORAL_NAMESPACE                the namespace (default: default)
#   TEMPORAL_TLS                      true: TLS with the system CAs; on by itself when a TLS file or an API
#                                     key is given, `false` refuses TLS files and a non-loopback API key
#   TEMPORAL_TLS_CLIENT_CERT_PATH     mTLS client certificate (PEM), with
#   TEMPORAL_TLS_CLIENT_KEY_PATH      its private key (PEM); one without the other stops the start
#   TEMPORAL_TLS_SERVER_CA_CERT_PATH  the CA of the server's certificate (PEM) when it is no public CA
#   TEMPORAL_TLS_SERVER_NAME          the name the server's certificate carries, when the address differs
#   SCHEDULER_TEMPORAL_API_KEY_FILE   a Temporal API key (Temporal Cloud), one line; re-read when the file
#                                     changes, so a rotated key applies without a restart
#   TEMPORAL_API_KEY                  the same key as a value: prefer the file (a value shows in
#                                     `docker inspect` and the process environment); not both
#   TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE   a TOML client profile (the temporal CLI's format) instead
#   SCHEDULER_API_KEY_FILE            the API's callers: hashed keys, `sha256:<hex>=tenant_id:owner_ref`
#                                     per line, re-read when the file changes
#   SCHEDULER_TENANTS_FILE            the tenant policy (JSON), re-read when it changes; every production
#                                     worker and API process needs it
#   SCHEDULER_CURSOR_SECRET           the same value on every API replica (at least 32 characters)
#   SCHEDULER_METRICS_TOKEN           bearer token of the API's GET /metrics
# Ports: the API on SCHEDULER_API_PORT (8080; GET /healthz liveness, GET /readyz readiness); a worker-only
# process (SCHEDULER_ROLE=worker) serves Prometheus metrics on SCHEDULER_METRICS_PORT with
# SCHEDULER_METRICS_HOST=0.0.0.0, and has no health endpoint of its own.
EXPOSE 8080
# `node` of the base image, by number: a Kubernetes runAsNonRoot check can only verify a numeric user.
USER 1000:1000
CMD ["node", "dist/main.js"]
