"""peak_rss.py MB COMMAND...: runs COMMAND, passes its exit status on, and fails when its peak
resident memory passed MB megabytes (a memory bound that `ulimit -v` cannot state: the address
space a process reserves, thread stacks and malloc's arenas, is not what it uses)."""
import resource
import subprocess
import sys

limit_mb = int(sys.argv[1])
status = subprocess.run(sys.argv[2:]).returncode
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if status:
    sys.exit(status)
if peak_mb > limit_mb:
    sys.exit("peak resident memory %d MB, over %d MB" % (peak_mb, limit_mb))
