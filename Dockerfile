# syntax=docker/dockerfile:1
# The Tiller image (docker-compose.yml builds it for the worker and the gateway): Node 20, the compiled
# CLI and library, prebuilt workflow bundles (plain, traced for OTEL_TRACES_EXPORTER, and their twins with
# the encoding failure converter for TILLER_ENCRYPTION_KEYS), production
# dependencies only, running as the unprivileged `node` user.
#
#   docker build -t tiller .
#   docker run --rm -e TEMPORAL_ADDRESS=host.docker.internal:7233 tiller                  # the worker
#   docker run --rm -p 8787:8787 -e TILLER_GATEWAY_TOKENS=... tiller node bin/tiller.js serve --host 0.0.0.0
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
# Compile, bundle the workflows once (the worker then starts without webpack) with the traced twin
# (dist/workflow-bundle.traced.js, chosen by `tiller worker` when tracing is on) and the encrypting ones
# (*.encrypted.js, chosen when TILLER_ENCRYPTION_KEYS is set), drop dev dependencies.
RUN npm run build \
  && npx tsx scripts/build-workflow-bundle.ts dist/workflow-bundle.js --traced --encrypted \
  && npm prune --omit=dev --no-audit --no-fund

FROM node:20-slim
ENV NODE_ENV=production \
    TILLER_WORKSPACE=/workspace \
    TILLER_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/workflow-bundle.js /app/dist/workflow-bundle.traced.js \
  /app/dist/workflow-bundle.encrypted.js /app/dist/workflow-bundle.traced.encrypted.js ./dist/
# A new named volume takes this folder's owner, so the worker can write its workspace.
RUN mkdir -p /workspace && chown node:node /workspace
USER node
VOLUME ["/workspace"]
CMD ["node", "bin/tiller.js", "worker"]
