// tk-opt's input nested deeper than 10000 levels is an error, not a crash (MLIR's parser
// recursed past the default stack at 5000 nested modules); below it, tk-opt runs on a large
// stack.
// RUN: %python -c "n = 20000; open('%t.deep.mlir', 'w').write('module {' * n + '}' * n)"
// RUN: not %tk-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir: nested more than 10000 levels deep at byte 80007
// RUN: not %tk-opt < %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: <stdin>: nested more than 10000 levels deep at byte 80007
// RUN: %python -c "n = 6000; open('%t.ok.mlir', 'w').write('module {' * n + '}' * n)"
// RUN: %tk-opt %t.ok.mlir -o /dev/null
