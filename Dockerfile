# clustersim in a small image, for studies run as a Kubernetes Job (deploy/run-study.sh):
#   docker build -t clustersim:0.1.0 .
# The build stage uses the workspace's own release profile; the runtime image holds the binary
# and nothing else (no shell: the Job passes its shard as an argument), and runs as a non-root user.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p clustersim

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/target/release/clustersim /usr/local/bin/clustersim
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/clustersim"]
