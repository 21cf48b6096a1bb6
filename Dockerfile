# syntax=docker/dockerfile:1
# podconfig-exporter: Node and the exporter's bundle on a distroless-style root filesystem.
#   docker build --build-arg REVISION="$(git rev-parse HEAD)" --build-arg VERSION=0.1.0 -t podconfig-exporter .
# The release (.github/workflows/release.yml) builds it for linux/amd64 and linux/arm64. The
# runtime stage (the last one) is also what CI builds and runs: scripts/image-smoke.sh takes it
# as written, on the base that scripts/image/rootfs.sh assembles outside a container (as the
# rootfs stage does here), so keep its COPY --from lines in the form `COPY --from=STAGE /app/X ./X`.
# deploy/README.md ("The image") says what each layer holds and weighs.
ARG NODE_IMAGE=node:26.12.1-bookworm-slim

# The bundle (scripts/bundle.ts): one script with the dependencies it uses, OpenTelemetry
# included, and the worker threads' scripts. It is the same for every platform.
FROM --platform=$BUILDPLATFORM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
ARG REVISION=unknown
ARG BRANCH=unknown
ARG BUILD_DATE=unknown
RUN BUILD_REVISION="${REVISION}" BUILD_BRANCH="${BRANCH}" BUILD_DATE="${BUILD_DATE}" \
    npx tsx scripts/bundle.ts /app/bundle

# Node from npm and the libraries it links, CA certificates and time zones from Debian, for the
# target platform (scripts/image/rootfs.sh).
FROM ${NODE_IMAGE} AS rootfs
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends binutils >/dev/null
COPY scripts/image/rootfs.sh /rootfs.sh
ARG NODE_IMAGE
RUN version="${NODE_IMAGE#node:}" && bash /rootfs.sh /rootfs "${version%%-*}"

FROM scratch AS base
COPY --from=rootfs /rootfs/ /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

FROM base
# The release's version and git revision; the bundle has them baked in (--version and
# podconfig_build_info), the labels say them to registries and scanners.
ARG REVISION=unknown
ARG VERSION=unknown
LABEL org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/podconfig-exporter/podconfig-exporter" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/bundle ./bundle
# Static pods served by --demo.
COPY examples ./examples
# The image's "node" user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 9847
# No shell and no curl: probe /healthz with Node's fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9847/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# A young generation of 1 MiB semi-spaces instead of V8's up to 16 MiB: an idle exporter allocates
# little between scrapes, and the heap's total halves. One V8 platform thread instead of one a
# core (at most 4): three threads and their malloc arenas fewer, 1-3 MiB less idle and 2.5-8 MiB
# less under churn, for no more CPU time (docs/benchmarks.md, "Footprint"). bench:footprint,
# bench:resources and bench:hostile take the options from this line.
ENTRYPOINT ["node", "--max-semi-space-size=1", "--v8-pool-size=1", "bundle/podconfig-exporter.cjs"]
