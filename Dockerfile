# cardgate as a container: the Node single executable (SEA) alone on a distroless base.
#   docker build -t cardgate .
#   docker run -d -p 8080:8080 -v cardgate-data:/data cardgate
# The CI image (target `ci`): the same executable beside a shell, for CI jobs (the GitLab
# template) and CI services (`serve --sidecar`).
#   docker build --target ci -t cardgate:ci .
# Settings come as CARDGATE_* environment variables (README, Configuration).

# Build stage: the SEA is a copy of the Node binary package.json pins (npm ci installs it; this image's
# node is the same 24.x, which test/runtime.test.ts keeps in step) with the bundle injected, built
# against the glibc (Debian 12) the runtime image has.
FROM node:24.21.0-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN node build/build.mjs \
 && ./build/out/cardgate version \
 && mkdir -p /out/data

# CI: a job runs its script in a shell, so this image has one (Debian 12, as the build stage: its
# glibc and libstdc++). The entrypoint runs cardgate for a service's `command` (`serve --sidecar
# ...`) and a job's shell as it is. Its data dir is a scratch one: a sidecar lives as long as its job.
FROM debian:bookworm-slim AS ci
COPY --from=build /src/build/out/cardgate /usr/local/bin/cardgate
COPY ci/image/entrypoint.sh /usr/local/bin/cardgate-entrypoint
ENV CARDGATE_HOST=0.0.0.0 \
    CARDGATE_PORT=8080 \
    CARDGATE_DATA_DIR=/tmp/cardgate-data
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/cardgate-entrypoint"]
CMD ["serve"]

# Runtime (the default target, last): glibc and libstdc++ (what node links against), no shell, no package manager.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/build/out/cardgate /usr/local/bin/cardgate
# The data dir, owned by the image's non-root user (65532): the store makes it 0700 at start.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV CARDGATE_HOST=0.0.0.0 \
    CARDGATE_PORT=8080 \
    CARDGATE_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
# The binary checks itself: GET http://127.0.0.1:$CARDGATE_PORT/healthz (there is no curl here).
HEALTHCHECK --interval=30s --timeout=6s --start-period=10s --retries=3 CMD ["/usr/local/bin/cardgate", "healthcheck"]
# SIGTERM (docker stop) shuts down gracefully within shutdown.graceMs (8 s by default; docker waits 10 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/cardgate"]
CMD ["serve"]
