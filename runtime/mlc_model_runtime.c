/* The C API of an mlc model library (see the generated <name>.h for the functions).
 *
 * Not compiled alone: `mlc.runtime.capi` generates, per model, a C file that includes the
 * model's header, defines MLC_PREFIX, the tensor tables (mlc_inputs_, mlc_outputs_), the sizes
 * and `mlc_call_entry_` (the call of _mlir_ciface_<entry> with one descriptor per argument),
 * the symbolic-shape tables and functions (`capi_shapes.py`), then includes this file; the linker compiles it into the model's shared library. Every
 * function checks its arguments and returns an mlc_status; the message of the last failure of
 * the calling thread is <prefix>_last_error(). Nothing here needs Python.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MLC_CAT2(a, b) a##_##b
#define MLC_CAT(a, b) MLC_CAT2(a, b)
#define MLC_FN(name) MLC_CAT(MLC_PREFIX, name)
#define MLC_MODEL MLC_FN(model)
#define MLC_API __attribute__((visibility("default")))
#define MLC_ALIGN 64

struct MLC_MODEL {
  unsigned char *params;   /* the blob the entry reads */
  size_t mapped_size;      /* > 0: params is an mmap of this many bytes */
  int owns_params;         /* params was malloc'ed here */
  unsigned char *workspace;
  unsigned char *inputs[MLC_NUM_INPUTS + 1];
  unsigned char *outputs[MLC_NUM_OUTPUTS + 1];
  int input_set[MLC_NUM_INPUTS + 1];
  int64_t *descriptors[MLC_NUM_INPUTS + MLC_NUM_OUTPUTS + 2];
  /* the shapes of this run: given (set_input_shape) or static, and evaluated for outputs */
  int64_t in_shape[MLC_NUM_INPUTS + 1][MLC_MAX_RANK];
  int64_t out_shape[MLC_NUM_OUTPUTS + 1][MLC_MAX_RANK];
  size_t in_nbytes[MLC_NUM_INPUTS + 1], in_capacity[MLC_NUM_INPUTS + 1];
  size_t out_nbytes[MLC_NUM_OUTPUTS + 1], out_capacity[MLC_NUM_OUTPUTS + 1];
  int shape_set[MLC_NUM_INPUTS + 1];
  int outputs_sized;       /* out_shape holds the shapes of the last run */
  int threads;             /* the parallel regions' thread count for this model's runs */
};

/* Read by every OpenMP parallel region of the entry (passes/omp_threads.py), set before each
 * run. Weak: a model without such regions (1 thread, or the async runtime) does not define it. */
extern int32_t MLC_FN(num_threads) __attribute__((weak));

static __thread char mlc_error_[512];

static int mlc_fail_(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(mlc_error_, sizeof mlc_error_, fmt, ap);
  va_end(ap);
  return status;
}

MLC_API const char *MLC_FN(last_error)(void) { return mlc_error_; }

static void *mlc_alloc_(size_t nbytes) {
  size_t rounded = (nbytes + MLC_ALIGN - 1) / MLC_ALIGN * MLC_ALIGN;
  void *p = aligned_alloc(MLC_ALIGN, rounded ? rounded : MLC_ALIGN);
  if (p) memset(p, 0, rounded ? rounded : MLC_ALIGN);
  return p;
}

/* A memref descriptor laid out as the entry reads it: allocated and aligned pointers, offset,
 * sizes[rank], strides[rank] (row-major); every field is 8 bytes wide. */
static void mlc_fill_descriptor_(int64_t *d, void *data, int rank, const int64_t *shape) {
  d[0] = d[1] = (int64_t)(intptr_t)data;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    d[3 + i] = shape[i];
    d[3 + rank + i] = stride;
    stride *= shape[i];
  }
}

static int64_t *mlc_descriptor_(void *data, int rank, const int64_t *shape) {
  int64_t *d = calloc(3 + 2 * (size_t)(rank > 0 ? rank : 0), sizeof(int64_t));
  if (d) mlc_fill_descriptor_(d, data, rank, shape);
  return d;
}

static size_t mlc_nbytes_(size_t itemsize, int rank, const int64_t *shape) {
  size_t n = itemsize;
  for (int i = 0; i < rank; ++i) n *= (size_t)shape[i];
  return n;
}

MLC_API void MLC_FN(free)(struct MLC_MODEL *m) {
  if (!m) return;
  if (m->mapped_size) munmap(m->params, m->mapped_size);
  if (m->owns_params) free(m->params);
  free(m->workspace);
  for (int i = 0; i < MLC_NUM_INPUTS; ++i) free(m->inputs[i]);
  for (int i = 0; i < MLC_NUM_OUTPUTS; ++i) free(m->outputs[i]);
  for (int i = 0; i < MLC_NUM_INPUTS + MLC_NUM_OUTPUTS + 2; ++i) free(m->descriptors[i]);
  free(m);
}

static int mlc_check_threads_(int num_threads) {
  if (num_threads < 0)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "num_threads must be >= 0 (0: as compiled), got %d",
                     num_threads);
  if (num_threads > 1 && MLC_COMPILED_THREADS == 1)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT,
                     "this model was compiled for 1 thread and has no parallel loops, so it "
                     "cannot run on %d; recompile with mlc compile --threads %d",
                     num_threads, num_threads);
  if (num_threads && num_threads != MLC_COMPILED_THREADS && !&MLC_FN(num_threads))
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT,
                     "this model's parallel loops run on a fixed %d threads (compiled for the "
                     "async runtime); pass 0 or %d",
                     MLC_COMPILED_THREADS, MLC_COMPILED_THREADS);
  return MLC_OK;
}

/* A model with run-time sizes allocates its intermediates of run-time size on every run and
   frees them after: glibc would hand large ones back to the kernel (mmap, heap trimming) and
   fault the pages in again on the next run (BERT at 512 tokens: 130 instead of 80 ms). Keep
   freed memory of up to 32 MiB chunks in the heap instead (process-wide, like the Python
   runtime). */
static void mlc_keep_freed_memory_(void) {
#if defined(__GLIBC__)
  if (MLC_NUM_SYMBOLS) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
#endif
}

/* The model's buffers around a params blob (taken over by the model, freed by _free). */
static int mlc_finish_(struct MLC_MODEL *m, int num_threads, struct MLC_MODEL **out) {
  int n = 0;
  mlc_keep_freed_memory_();
  m->threads = num_threads ? num_threads : MLC_COMPILED_THREADS;
  m->workspace = mlc_alloc_(MLC_WORKSPACE_SIZE);
  if (!m->workspace) goto oom;
  /* a symbolic buffer is allocated once its shape is known (set_input_shape, run) */
  for (int i = 0; i < MLC_NUM_INPUTS; ++i) {
    const mlc_tensor_info *t = &mlc_inputs_[i];
    if (!mlc_input_symbolic_[i]) {
      if (!(m->inputs[i] = mlc_alloc_(t->nbytes))) goto oom;
      memcpy(m->in_shape[i], t->shape, sizeof(int64_t) * (size_t)t->rank);
      m->in_nbytes[i] = m->in_capacity[i] = t->nbytes;
      m->shape_set[i] = 1;
    }
    m->descriptors[n++] = mlc_descriptor_(m->inputs[i], t->rank, m->in_shape[i]);
  }
  for (int i = 0; i < MLC_NUM_OUTPUTS; ++i) {
    const mlc_tensor_info *t = &mlc_outputs_[i];
    if (!mlc_output_symbolic_[i]) {
      if (!(m->outputs[i] = mlc_alloc_(t->nbytes))) goto oom;
      memcpy(m->out_shape[i], t->shape, sizeof(int64_t) * (size_t)t->rank);
      m->out_nbytes[i] = m->out_capacity[i] = t->nbytes;
    }
    m->descriptors[n++] = mlc_descriptor_(m->outputs[i], t->rank, m->out_shape[i]);
  }
  m->outputs_sized = !MLC_NUM_SYMBOLS;
  int64_t params_shape = (int64_t)MLC_PARAMS_SIZE, workspace_shape = (int64_t)MLC_WORKSPACE_SIZE;
  m->descriptors[n++] = mlc_descriptor_(m->params, 1, &params_shape);
  m->descriptors[n++] = mlc_descriptor_(m->workspace, 1, &workspace_shape);
  for (int i = 0; i < n; ++i)
    if (!m->descriptors[i]) goto oom;
  *out = m;
  return MLC_OK;
oom:
  MLC_FN(free)(m);
  return mlc_fail_(MLC_ERR_OUT_OF_MEMORY, "out of memory allocating the model's buffers");
}

static struct MLC_MODEL *mlc_new_(void) { return calloc(1, sizeof(struct MLC_MODEL)); }

MLC_API int MLC_FN(create_from_file)(const char *params_path, int num_threads,
                                     struct MLC_MODEL **out) {
  if (!out) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "create_from_file: out is NULL");
  *out = NULL;
  if (!params_path) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "create_from_file: params_path is NULL");
  int status = mlc_check_threads_(num_threads);
  if (status) return status;
  int fd = open(params_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return mlc_fail_(MLC_ERR_IO, "cannot open params file '%s': %s", params_path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return mlc_fail_(MLC_ERR_IO, "params file '%s' is not a regular file", params_path);
  }
  if ((unsigned long long)st.st_size != (unsigned long long)MLC_PARAMS_SIZE) {
    close(fd);
    return mlc_fail_(MLC_ERR_PARAMS,
                     "params file '%s' holds %lld bytes; the model needs %llu (truncated, or "
                     "written for another build: use the <name>.params.bin mlc compile wrote)",
                     params_path, (long long)st.st_size, (unsigned long long)MLC_PARAMS_SIZE);
  }
  struct MLC_MODEL *m = mlc_new_();
  if (!m) {
    close(fd);
    return mlc_fail_(MLC_ERR_OUT_OF_MEMORY, "out of memory");
  }
  if (MLC_PARAMS_SIZE > 0) {
    /* copy-on-write: pages are read from disk when the model first touches them */
    void *p = mmap(NULL, MLC_PARAMS_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      close(fd);
      free(m);
      return mlc_fail_(MLC_ERR_IO, "cannot map params file '%s': %s", params_path,
                       strerror(errno));
    }
    m->params = p;
    m->mapped_size = MLC_PARAMS_SIZE;
  } else {
    m->params = mlc_alloc_(0);
    m->owns_params = 1;
  }
  close(fd);
  return mlc_finish_(m, num_threads, out);
}

MLC_API int MLC_FN(create_from_memory)(const void *params, size_t size, int num_threads,
                                       struct MLC_MODEL **out) {
  if (!out) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "create_from_memory: out is NULL");
  *out = NULL;
  if (!params && size) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "create_from_memory: params is NULL");
  if (size != (size_t)MLC_PARAMS_SIZE)
    return mlc_fail_(MLC_ERR_PARAMS, "params blob of %zu bytes given; the model needs %llu", size,
                     (unsigned long long)MLC_PARAMS_SIZE);
  int status = mlc_check_threads_(num_threads);
  if (status) return status;
  struct MLC_MODEL *m = mlc_new_();
  if (!m) return mlc_fail_(MLC_ERR_OUT_OF_MEMORY, "out of memory");
  if (!((uintptr_t)params % MLC_ALIGN)) {
    m->params = (unsigned char *)params; /* used in place: the caller keeps it alive */
  } else {
    if (!(m->params = mlc_alloc_(size))) {
      free(m);
      return mlc_fail_(MLC_ERR_OUT_OF_MEMORY, "out of memory copying the params blob");
    }
    memcpy(m->params, params, size);
    m->owns_params = 1;
  }
  return mlc_finish_(m, num_threads, out);
}

MLC_API int MLC_FN(create)(int num_threads, struct MLC_MODEL **out) {
  if (!out) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "create: out is NULL");
  *out = NULL;
#if MLC_EMBEDDED_PARAMS
  return MLC_FN(create_from_memory)(MLC_FN(embedded_params), (size_t)MLC_PARAMS_SIZE, num_threads,
                                    out);
#else
  (void)num_threads;
  return mlc_fail_(MLC_ERR_NO_EMBEDDED_PARAMS,
                   "this library does not embed its parameters (compiled without "
                   "--embed-params): use create_from_file with its .params.bin");
#endif
}

static int mlc_info_(const mlc_tensor_info *table, int count, const char *kind, int index,
                     mlc_tensor_info *info) {
  if (!info) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "%s_info: info is NULL", kind);
  if (index < 0 || index >= count)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "%s index %d out of range: the model has %d",
                     kind, index, count);
  *info = table[index];
  return MLC_OK;
}

static int mlc_find_(const mlc_tensor_info *table, int count, const char *kind, const char *name,
                     int *index) {
  if (!name || !index) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "find_%s: NULL argument", kind);
  for (int i = 0; i < count; ++i)
    if (strcmp(table[i].name, name) == 0) {
      *index = i;
      return MLC_OK;
    }
  return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "the model has no %s named '%s'", kind, name);
}

MLC_API int MLC_FN(num_inputs)(void) { return MLC_NUM_INPUTS; }
MLC_API int MLC_FN(num_outputs)(void) { return MLC_NUM_OUTPUTS; }

MLC_API int MLC_FN(input_info)(int index, mlc_tensor_info *info) {
  return mlc_info_(mlc_inputs_, MLC_NUM_INPUTS, "input", index, info);
}

MLC_API int MLC_FN(output_info)(int index, mlc_tensor_info *info) {
  return mlc_info_(mlc_outputs_, MLC_NUM_OUTPUTS, "output", index, info);
}

MLC_API int MLC_FN(find_input)(const char *name, int *index) {
  return mlc_find_(mlc_inputs_, MLC_NUM_INPUTS, "input", name, index);
}

MLC_API int MLC_FN(find_output)(const char *name, int *index) {
  return mlc_find_(mlc_outputs_, MLC_NUM_OUTPUTS, "output", name, index);
}

static int mlc_check_buffer_(const mlc_tensor_info *t, const char *kind, int index,
                             const void *data, size_t nbytes, size_t expected) {
  if (!data && expected) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "%s %d: data is NULL", kind, index);
  if (nbytes != expected)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT,
                     "%s %d ('%s', %s, %zu bytes) given a buffer of %zu bytes", kind, index,
                     t->name, t->dtype, expected, nbytes);
  return MLC_OK;
}

/* The size of a symbolic input for this run: checked against its static dims and bounds here,
 * against the other inputs when run() binds the symbols. */
MLC_API int MLC_FN(set_input_shape)(struct MLC_MODEL *m, int index, const int64_t *dims,
                                    int rank) {
  if (!m) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "set_input_shape: model is NULL");
  if (index < 0 || index >= MLC_NUM_INPUTS)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "input index %d out of range: the model has %d",
                     index, MLC_NUM_INPUTS);
  const mlc_tensor_info *t = &mlc_inputs_[index];
  if (rank != t->rank)
    return mlc_fail_(MLC_ERR_SHAPE, "input %d ('%s') has rank %d, given rank %d", index, t->name,
                     t->rank, rank);
  if (!dims && rank) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "set_input_shape: dims is NULL");
  for (int a = 0; a < rank; ++a) {
    if (dims[a] < 0)
      return mlc_fail_(MLC_ERR_SHAPE, "input '%s' axis %d: size %lld is negative", t->name, a,
                       (long long)dims[a]);
    if (mlc_input_kind_[index][a] == 0 && dims[a] != mlc_input_arg_[index][a])
      return mlc_fail_(MLC_ERR_SHAPE, "input '%s' axis %d must be %lld, got %lld", t->name, a,
                       (long long)mlc_input_arg_[index][a], (long long)dims[a]);
    if (mlc_input_kind_[index][a] == 1) {
      int64_t k = mlc_input_arg_[index][a];
      int64_t lo = mlc_symbol_bounds_[k][0], hi = mlc_symbol_bounds_[k][1];
      if (dims[a] < lo || (hi >= 0 && dims[a] > hi))
        return mlc_fail_(MLC_ERR_SHAPE,
                         "input '%s' axis %d (the dim '%s') is %lld, outside the bounds [%lld, "
                         "%lld] the model was compiled for (-1: unbounded)",
                         t->name, a, mlc_symbol_names_[k], (long long)dims[a], (long long)lo,
                         (long long)hi);
    }
  }
  size_t nbytes = mlc_nbytes_(mlc_input_itemsize_[index], rank, dims);
  if (nbytes > m->in_capacity[index] || !m->inputs[index]) {
    unsigned char *p = mlc_alloc_(nbytes);
    if (!p) return mlc_fail_(MLC_ERR_OUT_OF_MEMORY, "out of memory for input '%s'", t->name);
    free(m->inputs[index]);
    m->inputs[index] = p;
    m->in_capacity[index] = nbytes;
  }
  if (!m->shape_set[index] || memcmp(m->in_shape[index], dims, sizeof(int64_t) * (size_t)rank))
    m->input_set[index] = 0; /* data of another shape: set it again */
  if (rank) memcpy(m->in_shape[index], dims, sizeof(int64_t) * (size_t)rank);
  m->in_nbytes[index] = nbytes;
  m->shape_set[index] = 1;
  return MLC_OK;
}

/* Bind the symbols from every input's shape, check the model's shape checks, size the outputs
 * and point the descriptors at this run's buffers and shapes. */
static int mlc_prepare_(struct MLC_MODEL *m) {
  int64_t s[MLC_NUM_SYMBOLS + 1];
  int from[MLC_NUM_SYMBOLS + 1][2];
  for (int k = 0; k < MLC_NUM_SYMBOLS; ++k) s[k] = -1;
  for (int i = 0; i < MLC_NUM_INPUTS; ++i)
    for (int a = 0; a < mlc_inputs_[i].rank; ++a) {
      if (mlc_input_kind_[i][a] != 1) continue;
      int64_t k = mlc_input_arg_[i][a], size = m->in_shape[i][a];
      if (s[k] >= 0 && s[k] != size)
        return mlc_fail_(MLC_ERR_SHAPE,
                         "inputs disagree on the dim '%s': input '%s' axis %d has %lld, input "
                         "'%s' axis %d has %lld",
                         mlc_symbol_names_[k], mlc_inputs_[from[k][0]].name, from[k][1],
                         (long long)s[k], mlc_inputs_[i].name, a, (long long)size);
      s[k] = size;
      from[k][0] = i;
      from[k][1] = a;
    }
  mlc_div_zero_ = 0;
  for (int i = 0; i < MLC_NUM_INPUTS; ++i)
    for (int a = 0; a < mlc_inputs_[i].rank; ++a) {
      if (mlc_input_kind_[i][a] != 2) continue;
      int64_t want = mlc_input_expr_(i, a, s);
      if (want != m->in_shape[i][a])
        return mlc_fail_(MLC_ERR_SHAPE,
                         "input '%s' axis %d must be %lld with the dims the other axes give, "
                         "got %lld",
                         mlc_inputs_[i].name, a, (long long)want, (long long)m->in_shape[i][a]);
    }
  for (int c = 0; c < MLC_NUM_CHECKS; ++c) {
    int64_t lhs, rhs;
    mlc_check_sides_(c, s, &lhs, &rhs);
    if (lhs != rhs)
      return mlc_fail_(MLC_ERR_SHAPE,
                       "the inputs fail the model's shape check '%s' (%lld != %lld): the model "
                       "cannot run at these sizes",
                       mlc_check_text_[c], (long long)lhs, (long long)rhs);
  }
  for (int o = 0; o < MLC_NUM_OUTPUTS; ++o) {
    const mlc_tensor_info *t = &mlc_outputs_[o];
    int64_t shape[MLC_MAX_RANK];
    mlc_output_shape_(o, s, shape);
    for (int a = 0; a < t->rank; ++a)
      if (shape[a] < 0)
        return mlc_fail_(MLC_ERR_SHAPE, "output '%s' axis %d would have the negative size %lld",
                         t->name, a, (long long)shape[a]);
    size_t nbytes = mlc_nbytes_(mlc_output_itemsize_[o], t->rank, shape);
    if (nbytes > m->out_capacity[o] || !m->outputs[o]) {
      unsigned char *p = mlc_alloc_(nbytes);
      if (!p) return mlc_fail_(MLC_ERR_OUT_OF_MEMORY, "out of memory for output '%s'", t->name);
      free(m->outputs[o]);
      m->outputs[o] = p;
      m->out_capacity[o] = nbytes;
    }
    if (t->rank) memcpy(m->out_shape[o], shape, sizeof(int64_t) * (size_t)t->rank);
    m->out_nbytes[o] = nbytes;
  }
  if (mlc_div_zero_)
    return mlc_fail_(MLC_ERR_SHAPE, "a division by zero in the model's shape expressions");
  for (int i = 0; i < MLC_NUM_INPUTS; ++i)
    mlc_fill_descriptor_(m->descriptors[i], m->inputs[i], mlc_inputs_[i].rank, m->in_shape[i]);
  for (int o = 0; o < MLC_NUM_OUTPUTS; ++o)
    mlc_fill_descriptor_(m->descriptors[MLC_NUM_INPUTS + o], m->outputs[o], mlc_outputs_[o].rank,
                         m->out_shape[o]);
  m->outputs_sized = 1;
  return MLC_OK;
}

MLC_API int MLC_FN(get_output_shape)(struct MLC_MODEL *m, int index, int64_t *dims, int rank) {
  if (!m) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "get_output_shape: model is NULL");
  if (index < 0 || index >= MLC_NUM_OUTPUTS)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "output index %d out of range: the model has %d",
                     index, MLC_NUM_OUTPUTS);
  const mlc_tensor_info *t = &mlc_outputs_[index];
  if (rank != t->rank)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "output %d ('%s') has rank %d, not %d", index,
                     t->name, t->rank, rank);
  if (!dims && rank) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "get_output_shape: dims is NULL");
  if (mlc_output_symbolic_[index] && !m->outputs_sized)
    return mlc_fail_(MLC_ERR_INPUT_NOT_SET,
                     "output %d ('%s') has symbolic dims: its shape is known after run()", index,
                     t->name);
  if (rank) memcpy(dims, m->out_shape[index], sizeof(int64_t) * (size_t)rank);
  return MLC_OK;
}

MLC_API int MLC_FN(set_input)(struct MLC_MODEL *m, int index, const void *data, size_t nbytes) {
  if (!m) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "set_input: model is NULL");
  if (index < 0 || index >= MLC_NUM_INPUTS)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "input index %d out of range: the model has %d",
                     index, MLC_NUM_INPUTS);
  if (!m->shape_set[index])
    return mlc_fail_(MLC_ERR_INPUT_NOT_SET,
                     "input %d ('%s') has symbolic dims: give its shape with set_input_shape "
                     "before its data",
                     index, mlc_inputs_[index].name);
  int status =
      mlc_check_buffer_(&mlc_inputs_[index], "input", index, data, nbytes, m->in_nbytes[index]);
  if (status) return status;
  if (nbytes) memcpy(m->inputs[index], data, nbytes);
  m->input_set[index] = 1;
  return MLC_OK;
}

MLC_API int MLC_FN(run)(struct MLC_MODEL *m) {
  if (!m) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "run: model is NULL");
  for (int i = 0; i < MLC_NUM_INPUTS; ++i)
    if (!m->input_set[i])
      return mlc_fail_(MLC_ERR_INPUT_NOT_SET, "input %d ('%s') is not set", i, mlc_inputs_[i].name);
  if (MLC_NUM_SYMBOLS) {
    int status = mlc_prepare_(m);
    if (status) return status;
  }
  if (&MLC_FN(num_threads)) MLC_FN(num_threads) = m->threads;
  mlc_call_entry_((void **)m->descriptors);
  return MLC_OK;
}

MLC_API int MLC_FN(get_output)(struct MLC_MODEL *m, int index, void *data, size_t nbytes) {
  if (!m) return mlc_fail_(MLC_ERR_NULL_ARGUMENT, "get_output: model is NULL");
  if (index < 0 || index >= MLC_NUM_OUTPUTS)
    return mlc_fail_(MLC_ERR_INVALID_ARGUMENT, "output index %d out of range: the model has %d",
                     index, MLC_NUM_OUTPUTS);
  if (mlc_output_symbolic_[index] && !m->outputs_sized)
    return mlc_fail_(MLC_ERR_INPUT_NOT_SET,
                     "output %d ('%s') has symbolic dims: it has no value before run()", index,
                     mlc_outputs_[index].name);
  int status = mlc_check_buffer_(&mlc_outputs_[index], "output", index, data, nbytes,
                                 m->out_nbytes[index]);
  if (status) return status;
  if (nbytes) memcpy(data, m->outputs[index], nbytes);
  return MLC_OK;
}
