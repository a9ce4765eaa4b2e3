# syntax=docker/dockerfile:1
# The Tiller worker image (docker-compose.yml builds it): Node 20, the compiled CLI and library,
# a prebuilt workflow bundle, production dependencies only, running as the unprivileged `node` user.
#
#   docker build -t tiller-worker .
#   docker run --rm -e TEMPORAL_ADDRESS=host.docker.internal:7233 tiller-worker
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
# Compile, bundle the workflows once (the worker then starts without webpack), drop dev dependencies.
RUN npm run build \
  && node -e "require('@temporalio/worker').bundleWorkflowCode({ workflowsPath: require.resolve('./dist/src/workflows') }).then((b) => require('node:fs').writeFileSync('dist/workflow-bundle.js', b.code))" \
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
COPY --from=build /app/dist/workflow-bundle.js ./dist/workflow-bundle.js
# A new named volume takes this folder's owner, so the worker can write its workspace.
RUN mkdir -p /workspace && chown node:node /workspace
USER node
VOLUME ["/workspace"]
CMD ["node", "bin/tiller.js", "worker"]
