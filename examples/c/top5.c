/* Run an mlc compiled model from C and print the top-5 of its first output.
 *
 *   mlc compile squeezenet.onnx -o squeezenet.so --entry-name squeezenet
 *   cc -O2 -DMODEL=squeezenet -DMODEL_HEADER='"squeezenet.h"' -I. top5.c \
 *      -o top5 ./squeezenet.so -Wl,-rpath,'$ORIGIN'
 *   ./top5 squeezenet.params.bin input.bin [THREADS]  # input.bin: the raw bytes of input 0
 *
 * THREADS (default 0: as compiled) is the thread count given to create: a model compiled
 * with --threads N runs its parallel loops on any count.
 * Prints one line per class, "index value" (value with 9 significant digits: a float32 read
 * back from the text is the same float32), best first. Exit 0 on success, 1 on a usage error,
 * 2 when the model reports an error (its message on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MODEL
#define MODEL mlc_model
#endif
#ifndef MODEL_HEADER
#define MODEL_HEADER "mlc_model.h"
#endif
#include MODEL_HEADER

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(MODEL, name)

static int check(int status, const char *what) {
  if (status != MLC_OK) fprintf(stderr, "top5: %s failed (%d): %s\n", what, status, FN(last_error)());
  return status;
}

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc(n > 0 ? (size_t)n : 1);
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s PARAMS.bin INPUT.bin [THREADS]\n", argv[0]);
    return 1;
  }
  int threads = argc == 4 ? atoi(argv[3]) : 0;
  size_t input_size = 0;
  void *input = read_file(argv[2], &input_size);
  if (!input) {
    fprintf(stderr, "top5: cannot read %s\n", argv[2]);
    return 1;
  }
  CAT(MODEL, model) *model = NULL;
  mlc_tensor_info out_info;
  int status = check(FN(create_from_file)(argv[1], threads, &model), "create");
  if (!status) status = check(FN(set_input)(model, 0, input, input_size), "set_input");
  if (!status) status = check(FN(run)(model), "run");
  if (!status) status = check(FN(output_info)(0, &out_info), "output_info");
  if (!status && strcmp(out_info.dtype, "float32") != 0) {
    fprintf(stderr, "top5: output 0 is %s; this example reads float32 scores\n", out_info.dtype);
    status = 1;
  }
  float *out = NULL;
  size_t count = out_info.nbytes / sizeof(float);
  if (!status) {
    out = malloc(out_info.nbytes ? out_info.nbytes : 1);
    status = check(FN(get_output)(model, 0, out, out_info.nbytes), "get_output");
  }
  for (int rank = 0; !status && rank < 5 && rank < (int)count; ++rank) {
    size_t best = 0;
    for (size_t i = 1; i < count; ++i)
      if (out[i] > out[best]) best = i;
    printf("%zu %.9g\n", best, out[best]);
    out[best] = -1.0f / 0.0f; /* taken */
  }
  free(out);
  free(input);
  FN(free)(model);
  return status ? 2 : 0;
}
