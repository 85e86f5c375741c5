# The catalog image: opm serves catalog/ over gRPC to OLM's CatalogSource.

# The platform the build runs on, and the one it builds for; see Dockerfile (make catalog-build
# passes both, BuildKit, buildah and podman set TARGETPLATFORM for each platform of --platform).
ARG BUILDPLATFORM
ARG TARGETPLATFORM

# The serve cache, made by the build machine's opm so that building for another architecture
# needs no emulation: its files are the same on every platform (pogreb stores little-endian).
# No profiling endpoint: a build on the host's network (--network host) would take the host's
# port 6060, and fail when anything else holds it.
FROM --platform=$BUILDPLATFORM quay.io/operator-framework/opm:v1.60.0 AS cache
ADD catalog /configs
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only", "--pprof-addr="]

# The target platform, said again: buildah 1.28 and podman 4.3 give a stage without --platform
# the previous stage's, so every image of the list would carry the build machine's opm.
FROM --platform=$TARGETPLATFORM quay.io/operator-framework/opm:v1.60.0

ENTRYPOINT ["/bin/opm"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]

# The declarative config, and the serve cache built from it, owned by opm's user (1001) who made
# it, as when the RUN step was in this stage.
COPY --from=cache /configs /configs
COPY --from=cache --chown=1001:1001 /tmp/cache /tmp/cache

LABEL operators.operatorframework.io.index.configs.v1=/configs
