# syntax=docker/dockerfile:1
# podconfig-exporter: build with the full toolchain, run with production dependencies only.
#   docker build --build-arg REVISION="$(git rev-parse HEAD)" -t podconfig-exporter .
# The runtime stage (the last one) is also what CI builds and runs: scripts/image-smoke.sh takes
# it as written, on a base assembled from Debian's packages and the same Node release, so keep
# its COPY --from lines in the form `COPY --from=STAGE /app/X ./X`.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
# The git revision this image is built from: podconfig_build_info{revision} and --version.
ARG REVISION=unknown
LABEL org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production BUILD_REVISION=${REVISION}
WORKDIR /app
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Static pods served by --demo.
COPY examples ./examples
# The image's "node" user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 9847
# Slim images have no curl: probe /healthz with Node's fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9847/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/main.js"]
