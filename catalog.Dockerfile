# The catalog image: opm serves catalog/ over gRPC to OLM's CatalogSource.

# The platform the build runs on; see Dockerfile (make catalog-build passes it).
ARG BUILDPLATFORM

# The serve cache, made by the build machine's opm so that building for another architecture
# needs no emulation: its files are the same on every platform (pogreb stores little-endian).
FROM --platform=$BUILDPLATFORM quay.io/operator-framework/opm:v1.60.0 AS cache
ADD catalog /configs
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

FROM quay.io/operator-framework/opm:v1.60.0

ENTRYPOINT ["/bin/opm"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]

# The declarative config, and the serve cache built from it, owned by opm's user (1001) who made
# it, as when the RUN step was in this stage.
COPY --from=cache /configs /configs
COPY --from=cache --chown=1001:1001 /tmp/cache /tmp/cache

LABEL operators.operatorframework.io.index.configs.v1=/configs
