# One image for every role, chosen by its command (see docker-compose.yml):
#   api      node dist/src/main/api.js
#   worker   node dist/src/main/worker.js
#   migrate  node dist/src/main/migrate.js
#   agent    node dist/src/cli/main.js agent   (COMPUTE_API_URL, COMPUTE_AGENT_KEY, COMPUTE_AGENT_DIR)

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: compiling needs none, and they would fetch or phone home during the build.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The records the CLI and the portal read are the typed client's (types only: nothing of it runs).
COPY clients/typescript/src/schema.ts ./clients/typescript/src/
COPY workflows ./workflows
COPY activities ./activities
COPY scripts/build-portal.ts scripts/build-workflows.ts ./scripts/
# The server, the portal (the page at /, into dist/portal) and the workflow bundle the workers load
# (dist/workflow-bundle.js, TEMPORAL_WORKFLOW_BUNDLE): the runtime stage takes dist/.
RUN npm run build && npm run build:portal && npm run build:workflows

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. The platform binaries a worker would need to bundle workflows at
# start (@swc/core's; compose's workers load the prebuilt bundle instead) arrive as optional
# packages, so no install script has to run.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The agent's identity and job folders; a volume mounted here inherits the node user's ownership.
RUN install -d -o node -g node /var/lib/compute-agent
USER node
EXPOSE 3000 3001
CMD ["node", "dist/src/main/api.js"]
