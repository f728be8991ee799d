/* The driver's floor under a kernel launch: host time per cuLaunchKernel of one kernel
 * of a cubin, over LAUNCHES launches on the legacy default stream, measured in C so
 * nothing but the driver is timed. scripts/gpu-check-python.sh builds it with the CUDA
 * toolkit's compiler and prints its figure beside the Python launch test's, for the
 * vectorized copy on the same 128 x 64 bf16 tensors:
 *
 *     launch-floor CUBIN ENTRY SHARED_BYTES
 *
 * ENTRY takes (m: i32, k: i32, a, out) and SHARED_BYTES of dynamic shared memory, as
 * cuk-examples/copy_vectorized.cuk does (its manifest says how many). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LAUNCHES 10000
#define CHECK(call)                                                         \
    do {                                                                    \
        CUresult status = (call);                                           \
        if (status != CUDA_SUCCESS) {                                       \
            const char *name = "?";                                         \
            cuGetErrorName(status, &name);                                  \
            fprintf(stderr, "launch-floor: %s failed: %s\n", #call, name);  \
            return 1;                                                       \
        }                                                                   \
    } while (0)

static double seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: launch-floor CUBIN ENTRY SHARED_BYTES\n");
        return 2;
    }
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction function;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    CHECK(cuModuleLoad(&module, argv[1]));
    CHECK(cuModuleGetFunction(&function, module, argv[2]));
    int m = 128, k = 64;
    CUdeviceptr a, out;
    CHECK(cuMemAlloc(&a, (size_t)m * k * 2));
    CHECK(cuMemAlloc(&out, (size_t)m * k * 2));
    void *params[] = {&m, &k, &a, &out};
    /* copy_vectorized's launch: grid(k / 64, m / 128), block(128); see its source. */
    unsigned grid_x = k / 64, grid_y = m / 128, block = 128;
    unsigned shared = (unsigned)atoi(argv[3]);
    for (int i = 0; i < 100; i++)
        CHECK(cuLaunchKernel(function, grid_x, grid_y, 1, block, 1, 1, shared, 0, params, 0));
    CHECK(cuCtxSynchronize());
    double start = seconds();
    for (int i = 0; i < LAUNCHES; i++)
        CHECK(cuLaunchKernel(function, grid_x, grid_y, 1, block, 1, 1, shared, 0, params, 0));
    double elapsed = seconds() - start;
    CHECK(cuCtxSynchronize());
    printf("driver floor: %.2f us of host time per cuLaunchKernel over %d launches\n",
           elapsed / LAUNCHES * 1e6, LAUNCHES);
    return 0;
}
