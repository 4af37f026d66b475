# syntax=docker/dockerfile:1
# hostprobe's image, for linux/amd64 and linux/arm64. Stages:
#   build       compiles on Debian bookworm, always on the build machine's own platform
#               ($BUILDPLATFORM): natively when the image is for that platform, else (an arm64
#               image on amd64) cross-compiling with cmake/toolchains/aarch64-linux-gnu.cmake,
#               which is about ten times faster than compiling under qemu (README, "The image")
#   slim        bookworm-slim with the runtime libraries (podman build --target slim)
#   distroless  (the default, last) only the binary, the system probe's small helper beside it
#               (hostprobe-process-loops), the shared libraries they link and a passwd entry for
#               uid 10001: no shell, no package manager
# Both run as uid 10001 and work with a read-only root filesystem; hostprobe is PID 1, handles
# SIGTERM itself and reaps the orphans it inherits.
#   docker buildx build --platform linux/amd64,linux/arm64 .    (sets BUILDPLATFORM itself)
#   podman build --platform linux/arm64 --build-arg BUILDPLATFORM=linux/amd64 .
#     (podman 4.3, Debian 12's, does not set BUILDPLATFORM: without it the build stage would be
#     the arm64 base image, which compiles natively under emulation, slowly)

FROM --platform=$BUILDPLATFORM debian:bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake g++ make pkg-config libssl-dev \
      libcpp-httplib-dev nlohmann-json3-dev prometheus-cpp-dev liburing-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
ARG TARGETARCH
# For another architecture: the cross compiler, the :arm64 libraries and the private folder of
# what multiarch cannot install (scripts/arm64-deps.sh says why). Before the sources: cached.
COPY scripts/arm64-deps.sh ./scripts/
RUN native="$(dpkg --print-architecture)"; \
    if [ "${TARGETARCH:-$native}" != "$native" ]; then \
      { [ "$TARGETARCH" = arm64 ] && [ "$native" = amd64 ]; } \
        || { echo "build: cannot cross-compile for $TARGETARCH on $native" >&2; exit 1; }; \
      scripts/arm64-deps.sh /opt/arm64-deps && rm -rf /var/lib/apt/lists/*; \
    fi
COPY CMakeLists.txt ./
COPY cmake ./cmake
COPY src ./src
# One unity translation unit (scripts/setup.sh says why): about twice as fast from scratch.
# Installing strips the binary (with the target's strip) and drops any build-tree RUNPATH.
RUN native="$(dpkg --print-architecture)"; cross=""; \
    if [ "${TARGETARCH:-$native}" != "$native" ]; then \
      cross="-DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DHOSTPROBE_ARM64_DEPS=/opt/arm64-deps"; \
    fi; \
    cmake -S . -B /build $cross -DCMAKE_BUILD_TYPE=Release -DHOSTPROBE_TESTS=OFF \
      -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 \
 && cmake --build /build -j "$(nproc)" \
 && cmake --install /build --strip --prefix /rootfs/usr/local
# The distroless root: the binary, its loader and every shared library it loads, found from its
# ELF headers (ldd cannot run a cross-compiled binary): the target's multiarch directory, the
# private folder, then the cross compiler's own runtime. hostprobe-process-loops links only libc
# and the loader, which the agent's list holds.
COPY scripts/copy-runtime-libs.sh ./scripts/
RUN native="$(dpkg --print-architecture)"; triplet="$(gcc -dumpmachine)"; \
    if [ "${TARGETARCH:-$native}" != "$native" ]; then triplet=aarch64-linux-gnu; fi; \
    mkdir -p /rootfs/etc /rootfs/tmp \
 && scripts/copy-runtime-libs.sh /rootfs/usr/local/bin/hostprobe /rootfs "$triplet" \
      "/usr/lib/$triplet" "/opt/arm64-deps/usr/lib/$triplet" "/usr/$triplet/lib" \
 && echo 'hostprobe:x:10001:10001:hostprobe:/nonexistent:/sbin/nologin' > /rootfs/etc/passwd \
 && echo 'hostprobe:x:10001:' > /rootfs/etc/group \
 && chmod 1777 /rootfs/tmp

FROM debian:bookworm-slim AS slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libssl3 libcpp-httplib0.11 libprometheus-cpp-core1.0 liburing2 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/log/apt /var/log/dpkg.log /var/cache/ldconfig/aux-cache \
 && useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin hostprobe
COPY --from=build /rootfs/usr/local/bin/hostprobe /rootfs/usr/local/bin/hostprobe-process-loops /usr/local/bin/
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
