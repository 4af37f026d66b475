// hostprobe-process-loops: the loops of the system probe that start processes, in a program as
// small as UnixBench's own (its execl, spawn and looper): C and libc only. What these tests
// measure is what starting and forking a small program costs; run from the agent's binary (a
// C++ runtime, OpenSSL and eight more libraries to load and relocate, a larger address space to
// copy) they measured the agent instead, a quarter of UnixBench's Execl Throughput.
//
//   hostprobe-process-loops execl  REPORT_FD DEADLINE_NS START_NS GENERATION
//   hostprobe-process-loops spawn  REPORT_FD DEADLINE_NS
//   hostprobe-process-loops looper REPORT_FD DEADLINE_NS PROGRAM [ARGUMENT ...]
//
// execl replaces itself with its next generation until CLOCK_MONOTONIC passes DEADLINE_NS;
// spawn forks a child that exits at once and waits for it; looper forks and execs PROGRAM
// (absolute path) and waits for it. Each writes one report (struct process_loops_report, as
// process_loops_report.hpp reads it) to REPORT_FD and exits 0; SIGTERM ends a loop early with
// what it has. A failed fork or exec, or a looper's program ending other than with status 0,
// ends the loop and is reported. Not meant for people: the agent starts it.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// Mirrored in process_loops_report.hpp; the agent checks the size.
struct process_loops_report {
    uint64_t loops;
    double seconds;         // from the loop's start (execl: START_NS) to its end
    int32_t failed_errno;   // a fork, exec or wait that failed: its errno, else 0
    int32_t failed_status;  // a looper program that did not exit 0: its wait status, else -1
};

static volatile sig_atomic_t stop_requested = 0;

static void request_stop(int signal_number) {
    (void)signal_number;
    stop_requested = 1;
}

static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int parse_number(const char* text, long long minimum, long long* value) {
    char* end = NULL;
    errno = 0;
    *value = strtoll(text, &end, 10);
    return errno == 0 && end != text && *end == '\0' && *value >= minimum;
}

static int write_report(int fd, uint64_t loops, int64_t start_ns, int failed_errno,
                        int failed_status) {
    struct process_loops_report report = {loops, (double)(monotonic_ns() - start_ns) / 1e9,
                                          failed_errno, failed_status};
    const char* bytes = (const char*)&report;
    size_t written = 0;
    while (written < sizeof report) {
        const ssize_t now = write(fd, bytes + written, sizeof report - written);
        if (now < 0 && errno == EINTR) continue;
        if (now <= 0) return 1;
        written += (size_t)now;
    }
    return 0;
}

static int usage(void) {
    static const char text[] =
        "hostprobe-process-loops: the system probe's helper, started by hostprobe; not a "
        "command\n";
    (void)!write(2, text, sizeof text - 1);
    return 2;
}

// UnixBench's execl.c: the report goes out once the deadline has passed.
static int execl_loop(char* self, int fd, long long deadline_ns, long long start_ns,
                      long long generation) {
    if (monotonic_ns() >= deadline_ns || stop_requested)
        return write_report(fd, (uint64_t)generation, start_ns, 0, -1);
    char fd_text[24], deadline_text[24], start_text[24], next_text[24];
    snprintf(fd_text, sizeof fd_text, "%d", fd);
    snprintf(deadline_text, sizeof deadline_text, "%lld", deadline_ns);
    snprintf(start_text, sizeof start_text, "%lld", start_ns);
    snprintf(next_text, sizeof next_text, "%lld", generation + 1);
    execl(self, self, "execl", fd_text, deadline_text, start_text, next_text, (char*)NULL);
    return write_report(fd, (uint64_t)generation, start_ns, errno, -1);
}

// Waits for `child`; on a stop request its process group is killed first. Returns its wait
// status, or -1 with errno set. A request that lands between the fork and the wait is seen only
// when the child ends; the agent kills the helper a second after its request in any case.
static int wait_for(pid_t child, int own_group) {
    int status = 0;
    for (;;) {
        if (waitpid(child, &status, 0) == child) return status;
        if (errno != EINTR) return -1;
        if (stop_requested) kill(own_group ? -child : child, SIGKILL);
    }
}

// UnixBench's spawn.c: a child that exits at once, per loop.
static int spawn_loop(int fd, long long deadline_ns) {
    const int64_t start_ns = monotonic_ns();
    uint64_t loops = 0;
    while (!stop_requested && monotonic_ns() < deadline_ns) {
        const pid_t child = fork();
        if (child == 0) exit(0);  // as spawn.c: the child runs libc's exit handlers
        if (child < 0) return write_report(fd, loops, start_ns, errno, -1);
        const int status = wait_for(child, 0);
        if (status < 0) return write_report(fd, loops, start_ns, errno, -1);
        ++loops;
    }
    return write_report(fd, loops, start_ns, 0, -1);
}

// UnixBench's looper.c: PROGRAM to its end, per loop. Each run is a process group of its own,
// so that a stop request kills what it started too (a shell's background jobs).
static int looper_loop(int fd, long long deadline_ns, char** program) {
    const pid_t parent = getpid();
    const int64_t start_ns = monotonic_ns();
    uint64_t loops = 0;
    while (!stop_requested && monotonic_ns() < deadline_ns) {
        const pid_t child = fork();
        if (child == 0) {
            (void)prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the loop
            if (getppid() != parent) _exit(126);
            (void)setpgid(0, 0);
            signal(SIGTERM, SIG_DFL);
            execv(program[0], program);
            _exit(127);
        }
        if (child < 0) return write_report(fd, loops, start_ns, errno, -1);
        (void)setpgid(child, child);  // here too: a stop may come before the child made it
        const int status = wait_for(child, 1);
        if (status < 0) return write_report(fd, loops, start_ns, errno, -1);
        if (stop_requested) break;  // killed mid-run: not a failure, not a loop
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return write_report(fd, loops, start_ns, 0, status);
        ++loops;
    }
    return write_report(fd, loops, start_ns, 0, -1);
}

int main(int argc, char** argv) {
    if (argc < 4) return usage();
    long long fd = 0, deadline_ns = 0;
    if (!parse_number(argv[2], 0, &fd) || fd > 65535 || !parse_number(argv[3], 0, &deadline_ns))
        return usage();
    // No SA_RESTART: a stop request interrupts a wait.
    struct sigaction on_stop;
    memset(&on_stop, 0, sizeof on_stop);
    on_stop.sa_handler = request_stop;
    sigemptyset(&on_stop.sa_mask);
    sigaction(SIGTERM, &on_stop, NULL);

    const char* mode = argv[1];
    if (strcmp(mode, "execl") == 0) {
        long long start_ns = 0, generation = 0;
        if (argc != 6 || !parse_number(argv[4], 0, &start_ns) ||
            !parse_number(argv[5], 1, &generation))
            return usage();
        return execl_loop(argv[0], (int)fd, deadline_ns, start_ns, generation);
    }
    if (strcmp(mode, "spawn") == 0) {
        if (argc != 4) return usage();
        return spawn_loop((int)fd, deadline_ns);
    }
    if (strcmp(mode, "looper") == 0) {
        if (argc < 5 || argv[4][0] != '/') return usage();
        return looper_loop((int)fd, deadline_ns, argv + 4);
    }
    return usage();
}
