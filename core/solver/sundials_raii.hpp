// SPDX-License-Identifier: GPL-3.0-or-later
// RAII owners of every SUNDIALS object Endstop creates. Private to core/solver.
#pragma once

#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>

#include <memory>
#include <stdexcept>

namespace endstop::core::solver {

class SunContext {
public:
    SunContext() {
        if (SUNContext_Create(nullptr, &m_ctx) != 0) throw std::runtime_error("SUNContext_Create failed");
    }
    ~SunContext() { SUNContext_Free(&m_ctx); }
    SunContext(const SunContext&) = delete;
    SunContext& operator=(const SunContext&) = delete;
    operator SUNContext() const { return m_ctx; }   // NOLINT

private:
    SUNContext m_ctx = nullptr;
};

struct NVectorDeleter {
    void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct MatrixDeleter {
    void operator()(SUNMatrix m) const { SUNMatDestroy(m); }
};
struct LinSolDeleter {
    void operator()(SUNLinearSolver s) const { SUNLinSolFree(s); }
};
struct IdaDeleter {
    void operator()(void* mem) const { IDAFree(&mem); }
};

using NVector = std::unique_ptr<std::remove_pointer_t<N_Vector>, NVectorDeleter>;
using Matrix = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter>;
using LinearSolver = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, LinSolDeleter>;
using IdaMemory = std::unique_ptr<void, IdaDeleter>;

inline NVector makeVector(long n, SUNContext ctx) {
    NVector v(N_VNew_Serial(n, ctx));
    if (!v) throw std::bad_alloc();
    N_VConst(0.0, v.get());
    return v;
}
inline double* data(const NVector& v) { return N_VGetArrayPointer(v.get()); }

}   // namespace endstop::core::solver
