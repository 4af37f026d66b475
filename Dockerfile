# hostprobe container image: build on Debian bookworm, run from bookworm-slim.
# (Issue 5 tightens this: read-only root, size targets, a distroless-style final stage.)

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake g++ make pkg-config libssl-dev \
      libcpp-httplib-dev nlohmann-json3-dev prometheus-cpp-dev liburing-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake ./cmake
COPY src ./src
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DHOSTPROBE_TESTS=OFF \
 && cmake --build /build -j "$(nproc)" \
 && strip /build/hostprobe

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl3 libcpp-httplib0.11 libprometheus-cpp-core1.0 liburing2 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin hostprobe
COPY --from=build /build/hostprobe /usr/local/bin/hostprobe
USER 10001
EXPOSE 9740
HEALTHCHECK --interval=30s --timeout=3s CMD ["hostprobe", "healthcheck"]
ENTRYPOINT ["hostprobe", "serve"]
