// Row-reduction helpers shared by reduce.cu and softmax.cu (the kernel loader inlines this
// file where a source says #include "row_reduce.cuh"; NVRTC sees one self-contained source).
// A row's TPR = blockDim.x threads reduce together; RPB = blockDim.y rows share a block.
#define FULL_MASK 0xffffffffu

template <class T> __device__ __forceinline__ T shfl_xor(T v, int o) {
    return __shfl_xor_sync(FULL_MASK, v, o);
}
template <class T> __device__ __forceinline__ T shfl_from(T v, int lane) {
    return __shfl_sync(FULL_MASK, v, lane);
}

// Combines the per-thread states of each row; every thread of the block must
// call it (it may __syncthreads), and each gets its row's thread-0 result so
// threads never disagree on bits (e.g. +0 vs -0 from max). A state type that is
// a struct provides its own shfl_xor/shfl_from overloads (found at instantiation).
template <class S, class Op>
__device__ __forceinline__ S row_allreduce(S v, Op op) {
    __shared__ S part[32];
    const int tpr = blockDim.x;
    const int w = tpr < 32 ? tpr : 32;
    for (int o = w >> 1; o > 0; o >>= 1) v = op(v, shfl_xor(v, o));
    if (tpr > 32) {
        const int nw = tpr >> 5, lane = threadIdx.x & 31;
        S* slot = part + threadIdx.y * nw;
        if (lane == 0) slot[threadIdx.x >> 5] = v;
        __syncthreads();
        v = slot[lane < nw ? lane : 0];
        __syncthreads();  // the slots are reused for the block's next rows
        for (int o = nw >> 1; o > 0; o >>= 1) v = op(v, shfl_xor(v, o));
    }
    const int lane = (threadIdx.y * tpr + threadIdx.x) & 31;
    return shfl_from(v, lane & ~(w - 1));
}
