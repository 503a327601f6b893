# a2a-gateway image. Every RUN step is a project script that CI also runs
# (test/integration/dockerfile.test.ts reads this file and checks it): build
# with the full dependencies, then a slim runtime with production dependencies
# only, running as the non-root `node` user, with no shell between the signal
# and the process (exec-form ENTRYPOINT) so SIGTERM drains the gateway.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY proto ./proto
COPY src ./src
RUN npm run build

# Example agents for docker/compose.yaml (they use the SDK, a dev dependency).
FROM build AS demo-agent
ENTRYPOINT ["node", "dist/demo/agent-main.js"]

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    A2A_GATEWAY_CONFIG=/etc/a2a-gateway/gateway.yaml
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY --from=build /app/dist ./dist
COPY proto ./proto
USER node
EXPOSE 8080 50051 9090
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "dist/cli/healthcheck.js"]
ENTRYPOINT ["node", "dist/cli/bin.js"]
