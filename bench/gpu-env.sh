# Sourced by a GPU run script on the device machine, from the repository root with $OUT set:
# unpacks .pack/tk-gpu.tar.xz (tools/gpu-check --bench), records the date, the pack's commit and
# the GPU in $OUT/machine.txt, and sets $tkc, LD_LIBRARY_PATH and TK_STDLIB_DIR.
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $OUT/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
# The operands of fp8_matmul_persistent per row and column at M N K, for `tkc run`.
fp8_args() { local M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M
  scale_b=rand:f32:$N bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
