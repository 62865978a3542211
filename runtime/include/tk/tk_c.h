/* tk's C API: the stable ABI other languages bind to (the Python package `tkc` does, through
 * ctypes). Contexts (the GPU or the CPU interpreter), modules from files or strings, kernels,
 * typed launches with constants, foreign device pointers and external CUDA streams (a
 * framework's), autotuning over a kernel's @autotune space. Link libtkc (tkc::compiler).
 *
 * Every function that can fail returns a tk_status; the message of the last failure on the
 * calling thread is tk_last_error(). Objects are freed with their _destroy function; a module
 * or kernel must not outlive its context (using one after is an error, not a crash). */
#ifndef TK_TK_C_H
#define TK_TK_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a declaration here changes meaning; additions keep it. */
#define TK_C_API_VERSION 1

typedef enum tk_status {
  TK_OK = 0,
  TK_ERROR = 1,            /* a compile error, a failed launch, a fault: tk_last_error() says */
  TK_INVALID_ARGUMENT = 2, /* a null handle, an unknown name, an argument of the wrong kind */
} tk_status;

typedef enum tk_backend { TK_BACKEND_INTERPRETER = 0, TK_BACKEND_CUDA = 1 } tk_backend;

typedef struct tk_context tk_context;
typedef struct tk_module tk_module;
typedef struct tk_kernel tk_kernel;
typedef struct tk_config tk_config;

int tk_c_api_version(void);
/* The last failure's message on this thread ("" when the last call succeeded); valid until the
 * thread's next call. */
const char *tk_last_error(void);

tk_status tk_context_create(tk_backend backend, int device, tk_context **out);
void tk_context_destroy(tk_context *context);
tk_backend tk_context_backend(const tk_context *context);
/* The device's name ("NVIDIA H200"; "interpreter" on the CPU). */
const char *tk_context_device_name(const tk_context *context);
/* Waits for the work queued on `stream` (a CUstream; NULL: the default stream). */
tk_status tk_context_synchronize(tk_context *context, void *stream);

/* A .tk file (its imports resolve beside it, then in the stdlib), or source text named `name`. */
tk_status tk_module_load_file(tk_context *context, const char *path, tk_module **out);
tk_status tk_module_load_string(tk_context *context, const char *source, const char *name, tk_module **out);
void tk_module_destroy(tk_module *module);

tk_status tk_module_kernel(tk_module *module, const char *name, tk_kernel **out);
void tk_kernel_destroy(tk_kernel *kernel);
const char *tk_kernel_name(const tk_kernel *kernel);
/* The runtime parameters, in order: name and type as the language writes it ("ptr<f16>", "i32",
 * "f32"; a `ptr<T>` of a dtype constant at T's default). Valid while the kernel lives. */
size_t tk_kernel_param_count(const tk_kernel *kernel);
tk_status tk_kernel_param(const tk_kernel *kernel, size_t index, const char **name, const char **type);
/* The `const T: dtype` parameter a parameter's element type is ("T" for `ptr<T>` or `T`; "" for
 * none): a launch's constant T then decides the element type. */
const char *tk_kernel_param_elem_from(const tk_kernel *kernel, size_t index);

typedef enum tk_arg_kind {
  TK_ARG_DEVICE = 0, /* `address`: device memory the program owns (CUDA backend) */
  TK_ARG_HOST = 1,   /* `host`, `bytes`: host memory, copied in before and back after the launch
                        (the interpreter; a launch on it is synchronous) */
  TK_ARG_INT = 2,    /* `integer`: an integer or bool parameter */
  TK_ARG_FLOAT = 3,  /* `real`: a float parameter */
  TK_ARG_UINT = 4,   /* `integer`'s bits as unsigned: a u64 parameter above INT64_MAX */
} tk_arg_kind;

typedef struct tk_arg {
  tk_arg_kind kind;
  uint64_t address;
  void *host;
  size_t bytes;
  int64_t integer;
  double real;
} tk_arg;

/* A constant, as `-D NAME=VALUE` writes it: "128", "0.5", "true", "f16". */
typedef struct tk_const {
  const char *name;
  const char *value;
} tk_const;

/* The grid of a config (the one being timed while tuning, then the winner): fill grid[0..2],
 * return 0; nonzero fails the launch. The config (its constants, the kernel's defaults included)
 * is valid only during the call, and the function must not launch kernels itself. */
typedef int (*tk_grid_fn)(const tk_config *config, void *user, int64_t grid[3]);
/* 0 with *value set when the config has the integer or bool constant `name`, else nonzero. */
int tk_config_int(const tk_config *config, const char *name, int64_t *value);
/* The constant `name` as -D writes it ("128", "0.5", "true", "f16"), or NULL; valid until the
 * thread's next call. */
const char *tk_config_value(const tk_config *config, const char *name);

/* Launches `kernel` over `grid` (when grid_fn is NULL) or grid_fn's grid, with one tk_arg per
 * runtime parameter in order and the constants, on `stream` (a CUstream the caller keeps;
 * NULL: the default stream). A kernel with an @autotune space is tuned on the first launch of
 * each key, unless the constants fix every tuned value. */
tk_status tk_kernel_launch(tk_kernel *kernel, const int64_t grid[3], tk_grid_fn grid_fn, void *grid_user,
                           const tk_arg *args, size_t arg_count, const tk_const *consts, size_t const_count,
                           void *stream);

/* Tunes `kernel` over its @autotune space for these arguments (a key's tuning, as its first
 * launch would do, the tuning database included) and sets *report to the tuning's JSON, valid
 * until the thread's next tk_kernel_tune:
 *   {"best": index into configs, "from_database": true when the database knew the winner and
 *    nothing was timed, "compile_seconds": s, "time_seconds": s,
 *    "configs": [{"config": "BM=128, BN=64", "constants": {"BM": "128", ...},
 *                 "ms": the config's median time or null, "status": "" or why it has no time}]}
 * Every config runs on the arguments (outputs are overwritten; reset_to_zero buffers are zeroed
 * before each timed run, restore_value ones copied back before each and after the last; both
 * need buffers of a known size, which the C API's device pointers are not). One config that can
 * run is not timed. Later launches of this key run the winner. */
tk_status tk_kernel_tune(tk_kernel *kernel, const int64_t grid[3], tk_grid_fn grid_fn, void *grid_user,
                         const tk_arg *args, size_t arg_count, const tk_const *consts, size_t const_count,
                         void *stream, const char **report);

#ifdef __cplusplus
}
#endif

#endif
