#!/usr/bin/env bash
# Session 12 run 2: new = rope + cache append in one launch, broadcasts of index arithmetic
# recomputed up to 32 ops deep (fp8_gemv_row's loop without shared-memory exchanges), the RMSNorm
# between batch-1 FP8 GEMVs folded into them; base = c42944b (session 11's commit, its stdlib).
root=$PWD; out=$OUT
mkdir -p /tmp/new /tmp/base && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/new && tar -xJf .pack/base.tar.xz -C /tmp/base
export PYTHONUNBUFFERED=1
{ date -u; cat /tmp/new/tk/commit; echo "base: $(cat /tmp/base/tk/commit)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -r; } | tee $out/machine.txt
argsrow() { echo a=rand:bf16:$(($1*$3)) b=rand:f8e4m3:$(($2*$3)) c=zeros:bf16:$(($1*$2)) scale_b=rand:f32:$2 bias=zeros:bf16:1 \
      residual=zeros:bf16:1 mul=zeros:bf16:1 M=$1 N=$2 K=$3 lda=$3 ldb=$3 ldc=$2 ldr=$2 ldm=$2; }
tune() { # name tk-dir stdlib extra-args M N K
  local name=$1 dir=$2 lib=$3 extra=$4; shift 4
  echo "== fp8_gemv_row M=$1 N=$2 K=$3 [$name]"
  LD_LIBRARY_PATH=$dir TK_STDLIB_DIR=$lib TK_CACHE_DIR=$(mktemp -d) timeout 60 $dir/tkc tune $lib/std/fp8_matmul.tk --kernel fp8_gemv_row \
    --grid "cdiv(N,BN),M" --time 200 $(argsrow $@) $extra 2>&1 | grep -E "best|per call"
}
nonorm="norm_x=zeros:bf16:1 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1"
for shape in "12288 4096" "11008 4096" "4096 11008"; do
  tune base /tmp/base/tk/bin $root/.pack/base-stdlib "" 1 $shape
  tune new /tmp/new/tk/bin $root/.pack/new-stdlib "$nonorm" 1 $shape
done 2>&1 | tee $out/tune.txt
tune new-rstd /tmp/new/tk/bin $root/.pack/new-stdlib "norm_x=rand:bf16:4096 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1 -D RSTD_EPS=1e-5" 1 12288 4096 2>&1 | tee -a $out/tune.txt
export LD_LIBRARY_PATH=/tmp/new/tk/bin TK_STDLIB_DIR=$root/.pack/new-stdlib
for k in fp8_gemv_row rope; do
  timeout 90 python3 tests/conformance/run.py --tkc /tmp/new/tk/bin/tkc --backend cuda --compare-interp -j 12 -k $k 2>&1 | grep -v "^ok" | tail -5
done 2>&1 | tee $out/conformance.txt
timeout 60 python3 tests/conformance/run.py --tkc /tmp/new/tk/bin/tkc --backend cuda --sanitize -j 12 -k fp8_gemv_row.rstd 2>&1 | tail -25 > $out/memcheck.txt
TK_CACHE_DIR=$(mktemp -d) timeout 60 python3 tests/llm/tiny_llama.py --tk-llama /tmp/new/tk/bin/tk-llama --backend cuda --skip-tokenizer 2>&1 | tail -14 | tee $out/llm-tiny.txt
unset LD_LIBRARY_PATH TK_STDLIB_DIR
PROFILE=1 timeout 330 python3 .pack/ab2.py 2 fp8b1,fp8b8 base=/tmp/base/tk/bin/tk-llama:.pack/base-stdlib new=/tmp/new/tk/bin/tk-llama:.pack/new-stdlib 2>&1 | grep -v "Writing model" | tee $out/ab.txt
timeout 100 python3 .pack/ab2.py 1 bf16b1 base=/tmp/base/tk/bin/tk-llama:.pack/base-stdlib new=/tmp/new/tk/bin/tk-llama:.pack/new-stdlib 2>&1 | grep -v "Writing model" | tee $out/ab-bf16.txt
