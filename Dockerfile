# Build the manager binary
FROM golang:1.26 AS builder
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
