// Runs minigrad's CUDA C kernels (kernels/*.cu) on the CPU, so that CI machines without a GPU
// execute the real kernel code: tests/cuda_on_cpu.py compiles each source as C++ with this
// header in front of it and the runtime half (MGEMU_RUNTIME) after it.
//
// The model is CUDA's, executed one block at a time:
// - every thread of a block is a fiber (its own stack); threadIdx, blockIdx, blockDim and
//   gridDim are globals that the scheduler sets before it resumes a fiber;
// - __syncthreads() and the warp shuffles suspend the fiber; the scheduler resumes the
//   waiting threads once every thread of the block (or of the warp) has arrived. A barrier
//   that some thread skips, a shuffle with an exited or missing lane, and a deadlock are
//   reported as faults, not hangs;
// - __shared__ variables are function-local statics: one copy, which is one block's shared
//   memory because blocks run one after another, filled with 0xff bytes before each block;
// - between barriers the threads run warp by warp, one warp as far ahead of the others as
//   its own shuffles allow, in an order the caller chooses (lowest warp and lane first,
//   highest first, or shuffled): a kernel whose result changes with that order has a race;
// - __trap() and faults abort the launch and come back to the caller as an error message.
// Not modelled: timing, memory coalescing, bank conflicts, registers, warp divergence costs,
// atomics other than atomicCAS, dynamic shared memory, cooperative groups, streams. Math
// functions are the host C library's (within a few ulp of CUDA's).

#ifndef MGEMU_RUNTIME
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

// ---- CUDA's built-in types and variables -----------------------------------------------------
struct uint3 { unsigned int x, y, z; };
struct dim3 { unsigned int x, y, z; };

struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
struct alignas(16) longlong2 { long long x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
struct alignas(8) uint2 { unsigned int x, y; };
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline double2 make_double2(double x, double y) { return double2{x, y}; }

namespace mgemu {
extern uint3 thread_idx, block_idx;
extern dim3 block_dim, grid_dim;
[[noreturn]] void trap(const char* why);
void barrier_block();
void warp_exchange(const void* value, void* result, int size, int src_lane, int xor_mask,
                   unsigned mask, const char* what);
}  // namespace mgemu

#define threadIdx (static_cast<const uint3&>(mgemu::thread_idx))
#define blockIdx (static_cast<const uint3&>(mgemu::block_idx))
#define blockDim (static_cast<const dim3&>(mgemu::block_dim))
#define gridDim (static_cast<const dim3&>(mgemu::grid_dim))
static constexpr int warpSize = 32;

inline void __syncthreads() { mgemu::barrier_block(); }
// correctly rounded arithmetic (the host compile uses -ffp-contract=off, so no product is fused
// anyway, and SSE's division and square root round to nearest as the _rn intrinsics do)
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
[[noreturn]] inline void __trap() { mgemu::trap("__trap() called"); }

template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 16, "shuffle of a big type");
    if (width != 32) mgemu::trap("__shfl_xor_sync with width != 32 is not emulated");
    T r;
    mgemu::warp_exchange(&v, &r, (int)sizeof(T), -1, lane_mask, mask, "__shfl_xor_sync");
    return r;
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 16, "shuffle of a big type");
    if (width != 32) mgemu::trap("__shfl_sync with width != 32 is not emulated");
    T r;
    mgemu::warp_exchange(&v, &r, (int)sizeof(T), src_lane & 31, 0, mask, "__shfl_sync");
    return r;
}

inline float __int_as_float(int v) { float r; memcpy(&r, &v, 4); return r; }
inline int __float_as_int(float v) { int r; memcpy(&r, &v, 4); return r; }
inline double __longlong_as_double(long long v) { double r; memcpy(&r, &v, 8); return r; }
inline long long __double_as_longlong(double v) { long long r; memcpy(&r, &v, 8); return r; }

// atomicCAS: a thread runs uninterrupted between its barriers and shuffles, so a plain
// read-compare-write is atomic here; which thread's update lands first follows the schedule
inline unsigned int atomicCAS(unsigned int* a, unsigned int compare, unsigned int v) {
    unsigned int old = *a;
    if (old == compare) *a = v;
    return old;
}
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long compare, unsigned long long v) {
    unsigned long long old = *a;
    if (old == compare) *a = v;
    return old;
}

// ---- CUDA's qualifiers ------------------------------------------------------------------------
// (defined after every system header: GCC's own headers use __noinline__ as an attribute name)
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// __shared__ variables are statics in a section of their own, which the runtime fills with
// 0xff bytes (NaN, -1) before every block: like a GPU's fresh shared memory, nothing a block
// reads before writing it holds a useful value
#define __shared__ static __attribute__((section("mgemu_shared")))

#else  // MGEMU_RUNTIME: the scheduler, the launch entry point and the kernel table

#undef __noinline__
#undef __shared__
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MGEMU_API extern "C" __attribute__((visibility("default")))

extern "C" __attribute__((weak)) char __start_mgemu_shared[];
extern "C" __attribute__((weak)) char __stop_mgemu_shared[];

namespace mgemu {

uint3 thread_idx, block_idx;
dim3 block_dim, grid_dim;

// ---- fibers -----------------------------------------------------------------------------------
// A context switch saves the callee-saved registers and the FP control words on the stack and
// swaps stack pointers (x86-64 System V): no system call, unlike swapcontext, which matters
// when every launch runs hundreds of threads.
extern "C" void mgemu_switch(void** save_sp, void* load_sp);
asm(R"(
    .text
    .p2align 4
    .globl mgemu_switch
    .hidden mgemu_switch
    .type mgemu_switch, @function
mgemu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size mgemu_switch, .-mgemu_switch
)");

enum State { READY, AT_BARRIER, AT_WARP, DONE };

constexpr int MAX_THREADS = 1024;
constexpr size_t STACK_BYTES = 256 * 1024;  // a thread's stack; a guard page lies below each
constexpr size_t PAGE = 4096;

struct Fiber {
    void* sp;
    State state;
    uint3 idx;
};

static Fiber fibers[MAX_THREADS];
static char* stacks;
static void* sched_sp;
static int nthreads, current;
static void (*cur_thunk)(void* const*);
static void* const* cur_args;

// the warp exchange: each lane's value, and (for the lane reading it) its source lane
static unsigned char xchg[MAX_THREADS][16];
static int xsrc[MAX_THREADS];
static int xsize[MAX_THREADS];

static sigjmp_buf abort_jmp;
static char errbuf[1024];
static volatile sig_atomic_t fault_kind;
static void* volatile fault_addr;
static char* altstack;

static void run_current();

static void entry() {
    run_current();
    for (;;) mgemu_switch(&fibers[current].sp, sched_sp);  // never resumed once DONE
}

static void run_current() {
    cur_thunk(cur_args);
    fibers[current].state = DONE;
}

static void* initial_sp(int t) {
    // the top of fiber t's stack, laid out as mgemu_switch leaves a suspended fiber: control
    // words, six registers, then entry() as the return address, at a 16-byte aligned slot so
    // entry() starts with the stack aligned as after a call
    char* top = stacks + (size_t)(t + 1) * (STACK_BYTES + PAGE);
    uintptr_t p = ((uintptr_t)top - 64) & ~(uintptr_t)15;
    void** s = (void**)p;
    s[0] = (void*)&entry;  // return address
    s[1] = nullptr;        // above it: a fake caller frame
    void** regs = s - 6;   // rbp rbx r12 r13 r14 r15, popped in reverse order
    for (int i = 0; i < 6; ++i) regs[i] = nullptr;
    uint32_t* cw = (uint32_t*)(regs - 1);
    cw[0] = 0x1F80;  // MXCSR default: all exceptions masked, round to nearest
    cw[1] = 0x037F;  // x87 control word default
    return (void*)(regs - 1);
}

[[noreturn]] void trap(const char* why) {
    snprintf(errbuf, sizeof errbuf, "%s (thread (%u, %u, %u) of block (%u, %u, %u))", why,
             thread_idx.x, thread_idx.y, thread_idx.z, block_idx.x, block_idx.y, block_idx.z);
    fault_kind = 1;
    siglongjmp(abort_jmp, 1);
}

static void suspend(State st) {
    fibers[current].state = st;
    mgemu_switch(&fibers[current].sp, sched_sp);
}

void barrier_block() { suspend(AT_BARRIER); }

void warp_exchange(const void* value, void* result, int size, int src_lane, int xor_mask,
                   unsigned mask, const char* what) {
    if (mask != 0xffffffffu) trap("a warp shuffle with a partial mask is not emulated");
    const int me = current;  // the linear thread id: x + y * bx + z * bx * by
    memcpy(xchg[me], value, size);
    xsize[me] = size;
    const int lane = src_lane >= 0 ? src_lane : ((me & 31) ^ (xor_mask & 31));
    xsrc[me] = (me & ~31) | lane;
    suspend(AT_WARP);  // resumed once every lane of the warp has written its value
    const int src = xsrc[me];
    if (src >= nthreads) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s reads lane %d, which does not exist in a block of %d threads",
                 what, src & 31, nthreads);
        trap(msg);
    }
    if (xsize[src] != size) trap("a warp shuffle whose lanes disagree on the value's size");
    memcpy(result, xchg[src], size);
    suspend(AT_WARP);  // nobody overwrites a value before every lane has read it
}

// ---- one block ----------------------------------------------------------------------------------

static uint64_t rng_state;
static uint64_t next_rand() {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void block_fault(const char* what) {
    snprintf(errbuf, sizeof errbuf, "%s (block (%u, %u, %u))", what, block_idx.x, block_idx.y,
             block_idx.z);
    fault_kind = 1;
    siglongjmp(abort_jmp, 1);
}

// Runs one warp's READY lanes until each blocks or exits, in the schedule's lane order.
static void run_warp(int w, int schedule) {
    const int lo = w * 32, hi = lo + 32 < nthreads ? lo + 32 : nthreads;
    int order[32];
    for (int i = 0; i < hi - lo; ++i) order[i] = schedule == 1 ? hi - 1 - i : lo + i;
    if (schedule == 2)
        for (int i = hi - lo - 1; i > 0; --i) {
            const int j = (int)(next_rand() % (uint64_t)(i + 1));
            const int tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
    for (int i = 0; i < hi - lo; ++i) {
        const int t = order[i];
        if (fibers[t].state != READY) continue;
        current = t;
        thread_idx = fibers[t].idx;
        mgemu_switch(&sched_sp, fibers[t].sp);
    }
}

// After run_warp(w): true if w's lanes all wait in a shuffle (they are released), false if
// none does; a shuffle that some lane of the warp can never join is a fault.
static bool release_warp(int w) {
    const int lo = w * 32, hi = lo + 32 < nthreads ? lo + 32 : nthreads;
    int waiting = 0, exited = 0;
    for (int t = lo; t < hi; ++t) {
        waiting += fibers[t].state == AT_WARP;
        exited += fibers[t].state == DONE;
    }
    if (waiting == 0) return false;
    if (waiting != hi - lo) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "warp %d: %d lanes wait in a shuffle with a full mask while %d have exited and %d "
                 "wait at __syncthreads()", w, waiting, exited, hi - lo - waiting - exited);
        block_fault(msg);
    }
    for (int t = lo; t < hi; ++t) fibers[t].state = READY;
    return true;
}

// The block's threads run warp by warp: the schedule picks a warp (the lowest, the highest or
// a random one with threads ready), which runs, through its own shuffles, until every lane
// waits at __syncthreads() or has exited; then the next. So one warp runs as far ahead of the
// others as a GPU may let it, and shared memory written without a barrier is read too early
// or too late depending on the schedule. Within a warp, lanes run in the schedule's order.
static void run_block(int schedule) {
    if (__start_mgemu_shared)
        memset(__start_mgemu_shared, 0xff, (size_t)(__stop_mgemu_shared - __start_mgemu_shared));
    const int bx = block_dim.x, by = block_dim.y;
    for (int t = 0; t < nthreads; ++t) {
        Fiber& f = fibers[t];
        f.idx = uint3{(unsigned)(t % bx), (unsigned)((t / bx) % by), (unsigned)(t / (bx * by))};
        f.state = READY;
        f.sp = initial_sp(t);
    }
    const int nwarps = (nthreads + 31) / 32;
    static bool ready[MAX_THREADS / 32];
    for (;;) {
        int nready = 0;
        for (int w = 0; w < nwarps; ++w) {
            ready[w] = false;
            for (int t = w * 32; t < nthreads && t < w * 32 + 32; ++t) ready[w] |= fibers[t].state == READY;
            nready += ready[w];
        }
        if (nready) {
            int pick = 0;
            if (schedule == 2) {
                int k = (int)(next_rand() % (uint64_t)nready);
                for (pick = 0; !ready[pick] || k--; ++pick) {}
            } else if (schedule == 1) {
                for (pick = nwarps - 1; !ready[pick]; --pick) {}
            } else {
                for (pick = 0; !ready[pick]; ++pick) {}
            }
            do run_warp(pick, schedule); while (release_warp(pick));
            continue;
        }
        // no thread is ready: every one has exited or waits at __syncthreads()
        int done = 0, at_barrier = 0;
        for (int t = 0; t < nthreads; ++t) {
            done += fibers[t].state == DONE;
            at_barrier += fibers[t].state == AT_BARRIER;
        }
        if (done == nthreads) return;
        if (at_barrier == nthreads) {
            for (int t = 0; t < nthreads; ++t) fibers[t].state = READY;
            continue;
        }
        char msg[160];
        snprintf(msg, sizeof msg, "__syncthreads() reached by %d of %d threads (the other %d exited)",
                 at_barrier, nthreads, done);
        block_fault(msg);
    }
}

static void on_signal(int sig, siginfo_t* info, void*) {
    fault_kind = sig == SIGFPE ? 3 : 2;
    fault_addr = info->si_addr;
    siglongjmp(abort_jmp, 2);
}

static bool setup() {
    if (stacks) return true;
    const size_t total = (size_t)MAX_THREADS * (STACK_BYTES + PAGE);
    void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return false;
    stacks = (char*)p;
    for (int t = 0; t < MAX_THREADS; ++t)  // the guard page below each stack
        mprotect(stacks + (size_t)t * (STACK_BYTES + PAGE), PAGE, PROT_NONE);
    altstack = (char*)malloc(64 * 1024);
    return altstack != nullptr;
}

struct Entry {
    const char* name;
    void (*call)(void* const*);
    std::string (*sig)();
};

// Type codes of a kernel parameter: f32 f64 i64 i32 b8 u64 for scalars, P<code> for a pointer
// the kernel may write through and C<code> for a pointer to const.
template <class T> struct Code;
template <> struct Code<float> { static std::string s() { return "f32"; } };
template <> struct Code<double> { static std::string s() { return "f64"; } };
template <> struct Code<long long> { static std::string s() { return "i64"; } };
template <> struct Code<int> { static std::string s() { return "i32"; } };
template <> struct Code<bool> { static std::string s() { return "b8"; } };
template <> struct Code<unsigned long long> { static std::string s() { return "u64"; } };
template <> struct Code<unsigned short> { static std::string s() { return "u16"; } };
template <class T> struct Code<T*> {
    static std::string s() {
        return (std::is_const<T>::value ? "C" : "P") + Code<typename std::remove_cv<T>::type>::s();
    }
};

template <class F> struct Thunk;
template <class... A> struct Thunk<void (*)(A...)> {
    template <void (*F)(A...), size_t... I>
    static void invoke(void* const* args, std::index_sequence<I...>) {
        F(*static_cast<typename std::remove_cv<A>::type*>(args[I])...);
    }
    template <void (*F)(A...)> static void call(void* const* args) {
        invoke<F>(args, std::index_sequence_for<A...>{});
    }
    static std::string sig() {
        std::string s;
        const std::string parts[] = {std::string(), Code<typename std::remove_cv<A>::type>::s()...};
        for (size_t i = 1; i < sizeof...(A) + 1; ++i) s += (i > 1 ? "," : "") + parts[i];
        return s;
    }
};

}  // namespace mgemu

#define MGEMU_KERNEL(name) \
    {#name, &mgemu::Thunk<decltype(&name)>::template call<&name>, &mgemu::Thunk<decltype(&name)>::sig},

#define MGEMU_EXPORTS                                                                              \
    static const int mgemu_n = sizeof(mgemu_table) / sizeof(mgemu_table[0]);                       \
    MGEMU_API int mgemu_count() { return mgemu_n; }                                                \
    MGEMU_API const char* mgemu_name(int i) { return mgemu_table[i].name; }                        \
    MGEMU_API int mgemu_signature(int i, char* out, int cap) {                                     \
        const std::string s = mgemu_table[i].sig();                                                \
        snprintf(out, cap, "%s", s.c_str());                                                       \
        return (int)s.size();                                                                      \
    }                                                                                              \
    MGEMU_API int mgemu_launch(int k, const unsigned* grid, const unsigned* block, void* const* args, \
                               int schedule, unsigned long long seed, char* err, int errcap,       \
                               unsigned long long* addr) {                                         \
        return mgemu::launch(mgemu_table[k].call, grid, block, args, schedule, seed, err, errcap, addr); \
    }

namespace mgemu {

// Runs every block of the grid, x fastest. Returns 0, or 1 with a message in err (a trap, a
// barrier or shuffle misuse, an integer division by zero, which a GPU does not trap on but
// which is garbage there), or 2 with the faulting address (a memory access the process
// may not make: with guard pages around the arguments, an out-of-bounds access).
static int launch(void (*call)(void* const*), const unsigned* grid, const unsigned* block,
                  void* const* args, int schedule, unsigned long long seed, char* err, int errcap,
                  unsigned long long* addr) {
    if (!setup()) {
        snprintf(err, errcap, "could not map the fiber stacks");
        return 1;
    }
    const long long nt = (long long)block[0] * block[1] * block[2];
    if (nt < 1 || nt > MAX_THREADS) {
        snprintf(err, errcap, "block (%u, %u, %u) has %lld threads", block[0], block[1], block[2], nt);
        return 1;
    }
    nthreads = (int)nt;
    block_dim = dim3{block[0], block[1], block[2]};
    grid_dim = dim3{grid[0], grid[1], grid[2]};
    cur_thunk = call;
    cur_args = args;
    rng_state = seed | 1;
    errbuf[0] = 0;
    fault_kind = 0;

    stack_t ss = {}, old_ss;
    ss.ss_sp = altstack;
    ss.ss_size = 64 * 1024;
    sigaltstack(&ss, &old_ss);
    struct sigaction sa = {}, old_segv, old_bus, old_fpe;
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGFPE, &sa, &old_fpe);

    int rc = 0;
    if (sigsetjmp(abort_jmp, 1) == 0) {
        for (unsigned z = 0; z < grid[2]; ++z)
            for (unsigned y = 0; y < grid[1]; ++y)
                for (unsigned x = 0; x < grid[0]; ++x) {
                    block_idx = uint3{x, y, z};
                    run_block(schedule);
                }
    } else {
        rc = fault_kind == 2 ? 2 : 1;
        if (fault_kind == 3) {
            snprintf(err, errcap, "arithmetic exception, an integer division by zero (thread (%u, %u, %u) "
                     "of block (%u, %u, %u))", thread_idx.x, thread_idx.y, thread_idx.z, block_idx.x,
                     block_idx.y, block_idx.z);
        } else if (rc == 2) {
            *addr = (unsigned long long)(uintptr_t)fault_addr;
            snprintf(err, errcap, "invalid memory access at %p (thread (%u, %u, %u) of block (%u, %u, %u))",
                     fault_addr, thread_idx.x, thread_idx.y, thread_idx.z, block_idx.x, block_idx.y,
                     block_idx.z);
        } else {
            snprintf(err, errcap, "%s", errbuf);
        }
    }
    sigaction(SIGSEGV, &old_segv, nullptr);
    sigaction(SIGBUS, &old_bus, nullptr);
    sigaction(SIGFPE, &old_fpe, nullptr);
    sigaltstack(&old_ss, nullptr);
    return rc;
}

}  // namespace mgemu

// tests/cuda_on_cpu.py compiles the kernels with -fsanitize=alignment,bounds and
// -fno-sanitize-recover, whose checks call the two handlers below (the layouts of `data` are the
// compilers' UBSan ABI), so that no sanitizer library is needed.
namespace mgemu {
struct UbsanLocation { const char* file; unsigned line, column; };
struct UbsanType { unsigned short kind, info; char name[1]; };
struct UbsanMismatch { UbsanLocation loc; const UbsanType* type; unsigned char log_alignment, check_kind; };
struct UbsanOutOfBounds { UbsanLocation loc; const UbsanType* array_type; const UbsanType* index_type; };
}  // namespace mgemu

// An index outside an array of known size: on a GPU, mostly a __shared__ array's, which
// compute-sanitizer reports as an invalid __shared__ access and which otherwise silently reads
// or overwrites another variable. (Pointer arithmetic into an array is not checked.)
extern "C" [[noreturn]] void __ubsan_handle_out_of_bounds_abort(void* data, void* index) {
    const mgemu::UbsanOutOfBounds* d = (const mgemu::UbsanOutOfBounds*)data;
    // the index's bits: a signed integer type has odd `info` (bit 0), its width 1 << (info >> 1)
    const unsigned bits = 1u << (d->index_type->info >> 1);
    long long i = (long long)(uintptr_t)index;
    if ((d->index_type->info & 1) && bits < 64) i = (long long)((unsigned long long)i << (64 - bits)) >> (64 - bits);
    char msg[224];
    snprintf(msg, sizeof msg, "index %lld out of bounds for type %s (%s:%u)", i, d->array_type->name,
             d->loc.file, d->loc.line);
    mgemu::trap(msg);
}

// A load or store through a pointer not aligned for its type. On a GPU such an access faults
// ("misaligned address"): typically a 16-byte vector (float4, double2) read at an offset view's
// address, which an x86 CPU would carry out without complaint.

extern "C" [[noreturn]] void __ubsan_handle_type_mismatch_v1_abort(void* data, void* ptr) {
    const mgemu::UbsanMismatch* d = (const mgemu::UbsanMismatch*)data;
    char msg[224];
    snprintf(msg, sizeof msg, "misaligned address %p for type %s, which requires %u byte alignment (%s:%u)",
             ptr, d->type->name, 1u << d->log_alignment, d->loc.file, d->loc.line);
    mgemu::trap(msg);
}

// Memory for the arguments: n bytes that end 0-15 bytes before a page the process may not
// touch (so reading or writing past the end faults), starting 16-byte aligned like a CUDA
// allocation's vector-aligned offsets.
MGEMU_API void* mgemu_alloc(unsigned long long n, unsigned long long* map_base,
                            unsigned long long* map_len) {
    const size_t data = ((size_t)n + 15) & ~(size_t)15;
    const size_t len = ((data + mgemu::PAGE - 1) / mgemu::PAGE + 1) * mgemu::PAGE;
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    char* guard = (char*)p + len - mgemu::PAGE;
    mprotect(guard, mgemu::PAGE, PROT_NONE);
    *map_base = (unsigned long long)(uintptr_t)p;
    *map_len = len;
    return guard - data;
}

MGEMU_API void mgemu_free(unsigned long long map_base, unsigned long long map_len) {
    munmap((void*)(uintptr_t)map_base, (size_t)map_len);
}

#endif  // MGEMU_RUNTIME
