# syntax=docker/dockerfile:1
# hostprobe's image. Stages:
#   build       compiles on Debian bookworm
#   slim        bookworm-slim with the runtime libraries (podman build --target slim)
#   distroless  (the default, last) only the binary, the shared libraries it links, and a
#               passwd entry for uid 10001: no shell, no package manager
# Both run as uid 10001 and work with a read-only root filesystem; hostprobe is PID 1, handles
# SIGTERM itself and reaps the orphans it inherits.

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake g++ make pkg-config libssl-dev \
      libcpp-httplib-dev nlohmann-json3-dev prometheus-cpp-dev liburing-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake ./cmake
COPY src ./src
# One unity translation unit (scripts/setup.sh says why): about twice as fast from scratch.
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DHOSTPROBE_TESTS=OFF \
      -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 \
 && cmake --build /build -j "$(nproc)" \
 && strip /build/hostprobe
# The distroless root: the binary and every shared library it loads, at their own paths.
RUN mkdir -p /rootfs/usr/local/bin /rootfs/etc /rootfs/tmp \
 && cp /build/hostprobe /rootfs/usr/local/bin/ \
 && ldd /build/hostprobe | awk '/=> \// {print $3} /^[ \t]*\// {print $1}' \
      | xargs -I{} cp --parents -L {} /rootfs/ \
 && echo 'hostprobe:x:10001:10001:hostprobe:/nonexistent:/sbin/nologin' > /rootfs/etc/passwd \
 && echo 'hostprobe:x:10001:' > /rootfs/etc/group \
 && chmod 1777 /rootfs/tmp

FROM debian:bookworm-slim AS slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl3 libcpp-httplib0.11 libprometheus-cpp-core1.0 liburing2 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/log/apt /var/log/dpkg.log /var/cache/ldconfig/aux-cache \
 && useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin hostprobe
COPY --from=build /build/hostprobe /usr/local/bin/hostprobe
USER 10001
EXPOSE 9740
HEALTHCHECK --interval=30s --timeout=3s CMD ["hostprobe", "healthcheck"]
ENTRYPOINT ["hostprobe", "serve"]

FROM scratch AS distroless
COPY --from=build /rootfs/ /
ENV PATH=/usr/local/bin
USER 10001:10001
EXPOSE 9740
HEALTHCHECK --interval=30s --timeout=3s CMD ["hostprobe", "healthcheck"]
ENTRYPOINT ["hostprobe", "serve"]
