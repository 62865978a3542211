# Sourced by a GPU run script on the device machine, from the repository root with $OUT set:
# unpacks .pack/tk-gpu.tar.xz (tools/gpu-check --bench), records the date, the pack's commit and
# the GPU in $OUT/machine.txt, and sets $tkc, LD_LIBRARY_PATH and TK_STDLIB_DIR.
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $OUT/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
