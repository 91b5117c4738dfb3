// SPDX-License-Identifier: GPL-3.0-or-later
// Loading the KLU module (sparse_solver.hpp).
#include "core/solver/sparse_solver.hpp"

#include "core/errors.hpp"
#include "core/solver/fast_vector.hpp"
#include "core/solver/restart.hpp"

#include <QLibrary>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace endstop::core::solver {

namespace {

std::string sparseModulePath() {
    if (const char* env = std::getenv("ENDSTOP_KLU_MODULE"); env && *env) return env;
    return ENDSTOP_KLU_MODULE_PATH;   // the build's own (core/CMakeLists.txt)
}

struct Module {
    KluCreate create = nullptr;
    std::string error;   // why it could not be loaded, if create is null
};

const Module& module() {
    static const Module m = [] {
        Module r;
        const std::string path = sparseModulePath();
        QLibrary lib(QString::fromStdString(path));   // stays loaded: QLibrary's destructor does not unload
        if (!lib.load()) {
            r.error = "the KLU module " + path + " could not be loaded (" + lib.errorString().toStdString() +
                      "); build the endstop_klu target, or set ENDSTOP_KLU_MODULE to its file";
            return r;
        }
        r.create = reinterpret_cast<KluCreate>(lib.resolve("endstop_klu_create"));
        if (!r.create)
            r.error = "the KLU module " + path + " has no endstop_klu_create (" + lib.errorString().toStdString() + ")";
        return r;
    }();
    return m;
}

}   // namespace

SparseSystem makeSparseSystem(N_Vector y, sunindextype nnz, SUNContext ctx) {
    const Module& m = module();
    if (!m.create) throw SolverError(m.error);
    SparseSystem s;
    if (const int rc = m.create(y, std::max<sunindextype>(nnz, 1), ctx, &s.A, &s.ls); rc != 0) {
        if (s.ls) SUNLinSolFree(s.ls);
        if (s.A) SUNMatDestroy(s.A);
        throw SolverError("could not create the KLU linear solver (" + std::to_string(N_VGetLength(y)) +
                          " unknowns, code " + std::to_string(rc) + ")");
    }
    keepSymbolicAnalysis(s.ls);
    accelerate(s.ls, s.A);
    return s;
}

}   // namespace endstop::core::solver
