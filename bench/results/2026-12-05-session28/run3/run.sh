#!/usr/bin/env bash
# Session 28, run 3: what keeps ws 3's k-loop out of uniform registers (ptxas puts a
# WARPSYNC.ALL before its wgmmas, so it does not see the warp converged there). SASS only, of
# cubins built here by ptxas 13.0 from experimental compilers (not committed): v1 without the
# turns' barriers (wrong, for the SASS only), v2 with the turns' bar.arrive naming its barrier
# by an immediate, v4 per-tensor scales (no masked scale loads). (run with $OUT)
set -u
out=$OUT
for c in .pack/*.cubin; do
  n=$(basename $c .cubin); cuobjdump -sass $c > /tmp/$n.sass
  echo "$n: $(grep -cE '^ +/\*[0-9a-f]{4}\*/' /tmp/$n.sass) instructions, $(grep -c R2UR /tmp/$n.sass) R2UR, $(grep -c WARPSYNC /tmp/$n.sass) WARPSYNC"
done 2>&1 | tee $out/sass.txt
tar -cJf $out/sass.tar.xz -C /tmp $(cd .pack && ls *.cubin | sed 's/cubin$/sass/')
