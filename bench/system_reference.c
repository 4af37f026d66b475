/* The reference for bench/system_vs_reference.sh: UnixBench's loops, as small C programs do
 * them, so that hostprobe's system probe can be held to the same loops outside the agent.
 *   system_reference syscall|spawn|context_switch SECONDS
 * prints loops per second. syscall is syscall.c's "mix" (close(dup(0)), getpid, getuid,
 * umask), spawn is spawn.c (fork, the child exits, wait), context_switch is context1.c (a
 * counter sent down one pipe and back up another between two processes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s syscall|spawn|context_switch SECONDS\n", argv[0]);
        return 2;
    }
    const double start = now(), end = start + atof(argv[2]);
    unsigned long loops = 0;
    if (strcmp(argv[1], "syscall") == 0) {
        const mode_t mask = umask(022);
        umask(mask);
        while (now() < end) {
            for (int i = 0; i < 64; ++i) {
                close(dup(0));
                getpid();
                getuid();
                umask(mask);
            }
            loops += 64;
        }
    } else if (strcmp(argv[1], "spawn") == 0) {
        while (now() < end) {
            const pid_t child = fork();
            if (child == 0) _exit(0);
            if (child < 0 || waitpid(child, NULL, 0) != child) return 1;
            ++loops;
        }
    } else if (strcmp(argv[1], "context_switch") == 0) {
        int down[2], up[2];
        if (pipe(down) != 0 || pipe(up) != 0) return 1;
        const pid_t child = fork();
        if (child == 0) {
            unsigned long value;
            close(down[1]);
            close(up[0]);
            while (read(down[0], &value, sizeof value) == sizeof value)
                if (write(up[1], &value, sizeof value) != sizeof value) _exit(1);
            _exit(0);
        }
        close(down[0]);
        close(up[1]);
        while (now() < end) {
            for (int i = 0; i < 16; ++i) {
                unsigned long echoed = 0;
                if (write(down[1], &loops, sizeof loops) != sizeof loops ||
                    read(up[0], &echoed, sizeof echoed) != sizeof echoed || echoed != loops)
                    return 1;
                ++loops;
            }
        }
        close(down[1]);
        waitpid(child, NULL, 0);
    } else {
        fprintf(stderr, "unknown test %s\n", argv[1]);
        return 2;
    }
    printf("%.1f\n", (double)loops / (now() - start));
    return 0;
}
