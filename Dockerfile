# a2a-gateway image. Every RUN step is a project script that CI also runs
# (test/integration/dockerfile.test.ts reads this file and checks it): build
# with the full dependencies, then a slim runtime with production dependencies
# only, running as the non-root `node` user, with no shell between the signal
# and the process (exec-form ENTRYPOINT) so SIGTERM drains the gateway.
# Node.js 24 is the current LTS line; the code also runs on Node >= 20.18
# (package.json "engines"), which CI tests.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY proto ./proto
COPY src ./src
RUN npm run build

# The demo echo agent for docker/compose.yaml (examples/demo-agent: the SDK,
# express and tsx are dev dependencies, so it runs on the build stage and is
# never part of the runtime image or the npm package).
FROM build AS demo-agent
COPY examples ./examples
ENTRYPOINT ["node", "--import", "tsx", "examples/demo-agent/agent-main.ts"]

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    A2A_GATEWAY_CONFIG=/etc/a2a-gateway/gateway.yaml
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY --from=build /app/dist ./dist
COPY proto ./proto
USER node
EXPOSE 8080 50051 9090
# Probes /healthz where A2A_GATEWAY_CONFIG's file puts it (the admin listener
# if configured, else the HTTP port); A2A_GATEWAY_HEALTH_URL overrides.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "dist/cli/healthcheck.js"]
ENTRYPOINT ["node", "dist/cli/bin.js"]
