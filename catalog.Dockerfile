# The catalog image: opm serves catalog/ over gRPC to OLM's CatalogSource.
FROM quay.io/operator-framework/opm:v1.60.0

ENTRYPOINT ["/bin/opm"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]

# The declarative config, and the serve cache built from it at image build time.
ADD catalog /configs
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

LABEL operators.operatorframework.io.index.configs.v1=/configs
