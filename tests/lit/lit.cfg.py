# lit configuration of tk's FileCheck tests.
import os
import lit.formats

config.name = "tk"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".tk"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.tk_bin_dir), "tests", "lit")

config.environment["PATH"] = os.pathsep.join([config.tk_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.environment["TK_STDLIB_DIR"] = os.path.join(config.tk_source_dir, "stdlib")
config.substitutions.append(("%tkc", os.path.join(config.tk_bin_dir, "tkc")))
config.substitutions.append(("%tk-opt", os.path.join(config.tk_bin_dir, "tk-opt")))
import sys
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tk_src", config.tk_source_dir))
config.substitutions.append(("%examples", os.path.join(config.tk_source_dir, "examples")))
config.substitutions.append(("%stdlib", os.path.join(config.tk_source_dir, "stdlib")))

# A GPU the CUDA driver would find (its device nodes): `UNSUPPORTED: gpu` marks the tests of
# what tk says without one.
if os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl"):
    config.available_features.add("gpu")
