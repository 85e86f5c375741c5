# The platform the build runs on. BuildKit sets it; docker's classic builder (docker 20.10
# without buildx, DOCKER_BUILDKIT=0) and buildah 1.28 (podman 4.3) leave it empty in FROM lines,
# so `make docker-build` passes it: the builder stage then runs natively and cross-compiles.
ARG BUILDPLATFORM

# Build the manager binary on the build machine's platform, for the image's (TARGETOS and
# TARGETARCH, which --platform sets): no emulation is needed to build for another architecture.
FROM --platform=$BUILDPLATFORM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH

WORKDIR /workspace
# The dependencies first, in a layer of their own: rebuilt only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download

# The whole module, as .dockerignore leaves it: every package main.go imports is there, so a new
# package cannot break the image (a list of directories here once left internal/ out).
COPY . .

# A static binary, so that the final image needs no libc.
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -ldflags "-s -w" -o manager .

# distroless static, as a non-root user: no shell, no package manager.
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]
