"""hostprobe's probe threads, in `hostprobe run` as in the agent, run at niceness 10 (the
runner's --probe-nice default) and so do the helper processes they start. The reference tools run
at the same niceness: on a busy machine a nice-0 reference gets several times the CPU of the
probe, and their ratio would measure the scheduler instead of the code (0.2 in one run beside a
build)."""
import os

PROBE_NICE = 10


def like_the_probe():
    """A subprocess preexec_fn: lower the child to the probe's niceness as the runner does; a
    child already nicer stays as it is."""
    if os.getpriority(os.PRIO_PROCESS, 0) < PROBE_NICE:
        os.setpriority(os.PRIO_PROCESS, 0, PROBE_NICE)
