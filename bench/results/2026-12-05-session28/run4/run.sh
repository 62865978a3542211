#!/usr/bin/env bash
# Session 28, run 4: what keeps ws 3's k-loop out of uniform registers (ptxas puts a
# WARPSYNC.ALL before its wgmmas, so it does not see the warp converged there). SASS only, of
# cubins built here by ptxas 13.0: e1, the programs' copies chosen by vote.sync.all(tid.x < 128) (a uniform
# predicate to ptxas); e2 the same with program 1's copy first (an experiment, not committed).
set -u
out=$OUT
for c in .pack/*.cubin; do
  n=$(basename $c .cubin); cuobjdump -sass $c > /tmp/$n.sass
  echo "$n: $(grep -cE '^ +/\*[0-9a-f]{4}\*/' /tmp/$n.sass) instructions, $(grep -c R2UR /tmp/$n.sass) R2UR, $(grep -c WARPSYNC /tmp/$n.sass) WARPSYNC"
done 2>&1 | tee $out/sass.txt
tar -cJf $out/sass.tar.xz -C /tmp $(cd .pack && ls *.cubin | sed 's/cubin$/sass/')
