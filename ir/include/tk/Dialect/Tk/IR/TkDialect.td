#ifndef TK_DIALECT_TD
#define TK_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tk_Dialect : Dialect {
  let name = "tk";
  let cppNamespace = "::tk";
  let summary = "Tile-level operations of the tk language";
  let description = [{
    The `tk` dialect holds what a tk program computes, one program (thread block) at a time,
    on tiles: ranked tensors of scalars or of `!tk.ptr<T>` global-memory pointers. Layouts,
    threads and shared memory are not visible here; later passes assign them. Elementwise
    arithmetic and control flow come from upstream `arith`, `math` and `scf`.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    /// Discardable attributes of the dialect (tk::numWarpsOf and tk::numStagesOf read the
    /// kernel's launch options). On a kernel's `func.func`:
    /// the function is a kernel (unit);
    static constexpr ::llvm::StringLiteral kKernel = "tk.kernel";
    /// the warps of a program (i32; kDefaultNumWarps when unset);
    static constexpr ::llvm::StringLiteral kNumWarps = "tk.num_warps";
    static constexpr int64_t kDefaultNumWarps = 4;
    /// the stages of the software pipeline of its dot loops (i32; 1, none, when unset);
    static constexpr ::llvm::StringLiteral kNumStages = "tk.num_stages";
    /// The `warp_specialize` launch option: a producer warpgroup fills TMA pipelines (sm_90a).
    static constexpr ::llvm::StringLiteral kWarpSpecialize = "tk.warp_specialize";
    /// `warp_specialize: 2`: besides the producer, the two consumer warpgroups take turns at
    /// the tensor cores (unit; tk-mma-ping-pong).
    static constexpr ::llvm::StringLiteral kPingPong = "tk.ping_pong";
    /// `warp_specialize: 3`: besides the producer, two programs of num_warps each share a
    /// multiprocessor's CTA, each on its own tiles of a persistent loop, taking turns at the
    /// tensor cores (unit; the TMA pipeline decides, tkg.programs_per_cta).
    static constexpr ::llvm::StringLiteral kTilePingPong = "tk.tile_ping_pong";
    /// `cluster_size: 2`: CTAs in clusters of 2 whose programs share the operand tiles both
    /// load by TMA multicast (i32; the TMA pipeline decides, tkg.cluster_ctas).
    static constexpr ::llvm::StringLiteral kClusterSize = "tk.cluster_size";
    /// the values of its constexpr parameters (a dictionary by name).
    static constexpr ::llvm::StringLiteral kConstants = "tk.constants";
    /// On a kernel's arguments: the parameter's name in the source (string);
    static constexpr ::llvm::StringLiteral kName = "tk.name";
    /// an integer parameter of an unsigned type (unit);
    static constexpr ::llvm::StringLiteral kUnsigned = "tk.unsigned";
    /// a parameter not specialized on its value (unit);
    static constexpr ::llvm::StringLiteral kNoSpec = "tk.nospec";
    /// what the argument is known to be divisible by (i64; elements for pointers).
    static constexpr ::llvm::StringLiteral kDivisibility = "tk.divisibility";
    /// On an f32 `math.exp`/`math.exp2` (`exp2(x, ftz = true)`): results below 2^-126 flush
    /// to zero, so the GPU's `ex2.approx.ftz` needs no rescaling around it (unit). (A
    /// constant operand is folded exactly, without the flush.)
    static constexpr ::llvm::StringLiteral kFlushToZero = "tk.ftz";
    /// On an `arith.remf` of tk-threads-to-llvm: already rewritten as C's fmod (unit).
    static constexpr ::llvm::StringLiteral kFmod = "tk.fmod";
  }];
}

class Tk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tk_Dialect, mnemonic, traits>;

#endif
