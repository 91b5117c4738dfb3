// SPDX-License-Identifier: GPL-3.0-or-later
// One integration run (integrator.hpp): its state and its steps. Internal to core/solver. The
// members are defined along the run's seams in three files: integrator.cpp (the main loop,
// output, statistics, failures), ida_setup.cpp (IDA set-up, tolerances and the callbacks IDA
// calls) and run_events.cpp (events, mode iteration, projection and consistent restarts).
#pragma once

#include "core/dae/reduced_evaluator.hpp"
#include "core/solver/ida_history.hpp"
#include "core/solver/integrator.hpp"
#include "core/solver/projection.hpp"
#include "core/solver/restart.hpp"
#include "core/solver/sundials_raii.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace endstop::core::solver::detail {

using Clock = std::chrono::steady_clock;
inline std::size_t at(int i) { return static_cast<std::size_t>(i); }

class Run {
public:
    Run(const dae::DaeSystem& sys, const SolverOptions& opt, Recorder& rec, ResultSink& sink, const RunControl& ctl)
        : m_sys(sys),
          m_opt(opt),
          m_rec(rec),
          m_sink(sink),
          m_ctl(ctl),
          m_red(dae::planReduction(sys, opt.reduce)),
          m_rev(sys, m_red),
          m_ev(m_rev.full()),
          m_guard(opt.limits, opt.stopTime, opt.relativeTolerance) {}

    RunStats execute();

private:
    // ---- IDA callbacks (ida_setup.cpp) ---------------------------------------------------------
    static int residualFn(double t, N_Vector y, N_Vector yp, N_Vector r, void* ud);
    static int jacobianFn(double t, double cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix J, void* ud, N_Vector,
                          N_Vector, N_Vector);
    static int rootFn(double t, N_Vector y, N_Vector yp, double* g, void* ud);
    static void errorFn(int, const char* module, const char* function, char* msg, void* ud);

    // ---- set-up (ida_setup.cpp) ----------------------------------------------------------------
    void setUp();
    void createIda(double t);   // IDA memory for idaSize() unknowns at t, its linear solver attached
    // m_A and m_ls, made on first use: IDA's while nothing rests, and the restarts' that need the
    // full matrix (a resting b10000 never does)
    LinearSystem fullSystem();
    void setTolerances();
    void passTolerances();
    void holdConstraintForces(double t);   // constraint forces out of IDA's tests while their locks hold
    struct ConstraintForce {
        int unknown = -1, block = -1;   // a reduced unknown, its block
        bool held = false;              // its block's lock holds: out of IDA's tests
    };
    std::vector<ConstraintForce> m_constraintForces;
    void findAliases();
    static int weightFn(N_Vector y, N_Vector ewt, void* ud);   // IDAWFtolerances: aliases tested too
    std::vector<int> m_aliasFirst;                             // per reduced unknown: its aliases' range
    std::vector<double> m_aliasOffset, m_aliasCoefficient;
    double m_weightScale = 1.0;
    std::vector<double> m_peak;   // per reduced unknown: the largest |y| of an algebraic one so far (weightFn)
    void check(int flag, const char* what);

    // ---- consistent (re)start and events (run_events.cpp) --------------------------------------
    void restart(double t);
    void chooseFirstStep(double t);
    bool calcIC(double t);   // false: no consistent state, but settleOnTrial() changed a mode
    int calcICFromTrial(double t, double tout1, int flag);   // calcIC(): once more from one Newton step
    bool settleOnTrial(double t);
    template <class Use> bool onTrialStep(double t, Use&& use);   // y, y' put back unless use() keeps them
    const std::vector<double>& idMask();                          // the full id vector in the current modes (m_mask)
    void reInit(double t);
    void syncFull(double t);
    bool settle(double t);
    int ownUnknown(int block, int var) const;
    template <class F> bool withCtx(int b, double t, F&& f);
    void initRoots(double t);
    void handleRoots(double t);
    bool stepOver(double t);     // after a root whose changes are all continuous: go on without a restart
    void eventDone();            // the step-over or restart is done: the event's blocks and changes forgotten
    bool m_jumped = false;       // withCtx(): a block changed its rows discontinuously (EventCtx::jumped)
    bool m_across = true;        // withCtx(): every block that changed did so across (EventCtx::continuousAcross)
    void overVectors();                   // m_over*: made for IDA's size on first use
    bool residualAtEnd(N_Vector r);       // at the end of IDA's last step, in the current modes
    double newtonCorrection();            // stepOver(): what the new modes ask of IDA's last step (m_overX)
    void captureHistory();                // handleRoots(): the old modes' residuals, before the event
    bool alignHistory(double t);          // stepOver(): IDA's history moved onto the new modes
    bool rootAtRest(double t);            // stepOver(): a live root is exactly zero at the event
    std::vector<double> m_idScratch;
    NVector m_overY, m_overYp, m_overR, m_overROld, m_overX, m_overW, m_overT;
    struct {
        bool captured = false;   // m_overROld holds the old modes' residual at IDA's last point
        bool along = false;      // and m_histOld theirs at every point of IDA's history (ida)
        IdaHistory ida;
    } m_hist;
    using HistoryVectors = std::array<NVector, kMaxHistoryPoints>;
    // at the history's points: y, y', the old and new modes' residuals, rates, the move and a term
    HistoryVectors m_histY, m_histYp, m_histOld, m_histNew, m_histRate, m_histMove, m_histTerm;
    std::vector<double> m_rootScratch;   // the live roots at an event stepped over (rootAtRest)
    void handleTimeEvents(double t);
    bool endWithinRounding(double t, long& outputIndex);   // loop(): the stop time is t up to rounding
    // The latest time that counts as now: a scheduled event closer than this is taken here.
    static double dueBy(double t) {
        return t + 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
    }
    void guardChattering(double t) { m_guard.restart(t, m_log.empty() ? std::string() : m_log.back().block); }

    // ---- the resting part (run_resting.cpp, docs/engine.md) ----------------------------------
    // IDA may solve the moving part of a large reduced network alone: m_active lists its reduced
    // unknowns (IDA's index s is m_active[s]); the others rest at their values with zero rates.
    // m_y, m_yp, m_id and m_atol stay the reduced vectors that the rest of the run reads; IDA's
    // own (idaY() ...) are gathered from them before IDA sees them and scattered back after.
    void startResting(double t);
    void watchResting(double t, bool everyRow);   // after a step (and an event): grow if needed
    void growResting(double t);                   // m_grow's rows and their neighbourhood start moving
    void buildMoving();                           // IDA's vectors and the moving part's pattern
    int idaSize() const { return m_resting ? static_cast<int>(m_active.size()) : m_rev.size(); }
    N_Vector idaY() const { return m_resting ? m_ya.get() : m_y.get(); }
    N_Vector idaYp() const { return m_resting ? m_ypa.get() : m_yp.get(); }
    N_Vector idaId() const { return m_resting ? m_ida.get() : m_id.get(); }
    void toIda();     // m_y, m_yp and m_id into IDA's vectors
    void fromIda();   // IDA's y and y' into m_y, m_yp
    dae::State reducedState(double t, N_Vector y, N_Vector yp);   // a callback's point, reduced

    // ---- the quadratures (run_quadratures.cpp) ----------------------------------------------
    // m_q holds them at m_tq; after each step IDA returns, advanceQuadratures() brings them to
    // its time from IDA's interpolant (or to a grid row's time inside the step first)
    void advanceQuadratures(double to);
    void quadratureRatesAt(double tau, double* out);   // the rates at tau inside IDA's last step
    void forgetQuadratureStart() { m_qStartValid = false; }   // a restart: no earlier points
    struct QuadraturePiece {
        double a, b;
        std::size_t fa, fm, fb;   // the rates at a, (a + b) / 2 and b: indices into m_qRates
        int depth;
    };
    double m_tq = 0.0;
    double m_idaT = 0.0;   // the time IDASolve last returned: idaY() and idaYp() hold that point
    NVector m_qy, m_qyp;   // IDA's interpolant at a point (IDA's size)
    std::vector<double> m_qRates;   // the rates at m_qTimes, then at a piece's points
    std::vector<double> m_qTimes;   // up to four ends of pieces since the last restart, the last m_tq
    std::vector<double> m_qPiece;   // a piece's integral by the polynomial
    bool m_qStartValid = false;     // m_qTimes and their rates hold (no restart since)
    std::vector<QuadraturePiece> m_qPieces;

    // ---- main loop, output, statistics, failures (integrator.cpp) ------------------------------
    RunStats withoutUnknowns(Clock::time_point start);
    void loop();
    void catchUpGrid(double t, long& outputIndex);
    void recordPassedGrid(double t, long& outputIndex, bool root);
    void recordInterpolated(double tg);   // the row at tg inside IDA's last step
    std::vector<double> m_stepEnd;        // recordInterpolated(): IDA's vectors at the step's end
    double nextTimeEvent() const;
    dae::State state(double t);
    void recordRow(double t);
    void recordConsistent(double t);   // recordRow() with consistent rates where the reduction gives them
    void recordLast();
    void accumulateInto(RunStats& s);
    void accumulate() { accumulateInto(m_stats); }   // before IDAReInit, which resets IDA's counters
    void finish(Clock::time_point start);
    void rethrowCallbackError();
    [[noreturn]] void failSolve(double t, int flag);
    // What a failure blames: "largest error in the x of slider" and its block; empty if nothing
    struct Blame {
        std::string what, block;
        int unknown = -1;    // of the network as drawn: the unknown measured, if one was
        double flow = 0.0;   // the flow far out of scale that named the block (blameByNodes), or 0
    };
    Blame culprit(double t);                                // the largest weighted local error, IDA's state at t
    Blame culpritAtStart(double t, bool byValue = false);   // the fastest weighted rate (or largest value)
    Blame undetermined(double t);   // no consistent state: what a singular index-1 matrix leaves open
    struct Holding {
        int block = -1, via = -1;
    };
    Holding holdingBeside(int block) const;   // a block holding a motion `block` acts on, and through what
    // a hint's tail for an error-test failure as drawn on an unknown the reduction makes explicit; or empty
    std::string reducedWouldCompute(int flag, int unknown) const;
    // reduced: an index of the reduced unknowns; byFlow: a node's velocity names its largest flow
    Blame blame(double t, const char* measure, int reduced, bool byFlow = false);
    Blame blameByNodes(double t, const char* measure, int reduced);   // culprit(): by the flows nearby
    struct FlowReading {
        double size = -1.0;        // the largest flow; -1: none read
        double outOfScale = 0.0;   // decades from 1 in SI of that flow, or of the node's inertia if farther
    };
    FlowReading drivenBy(double t, int unknown, Blame& blame);   // blame(): a node's velocity, by the flows into it
    void runawayAnywhere(double t, Blame& blame);   // a flow above RunGuard::kRunawayFlow anywhere names its block
    [[noreturn]] void failAt(double t, const std::string& what, const std::string& hint, const std::string& block = {});

    const dae::DaeSystem& m_sys;
    const SolverOptions& m_opt;
    Recorder& m_rec;
    ResultSink& m_sink;
    const RunControl& m_ctl;
    const dae::ReductionPlan m_red;
    dae::ReducedEvaluator m_rev;   // IDA's residual and Jacobian
    // event functions that are not affine (IDA calls them between residuals): made at the first,
    // with the full vectors they are evaluated at; a network of affine ones needs neither
    std::optional<dae::ReducedEvaluator> m_revRoots;
    dae::Evaluator& m_ev;   // the full network: projections, modes, recording
    SunContext m_ctx;
    NVector m_y, m_yp, m_id, m_atol, m_q;                 // reduced (IDA's); m_q the quadratures
    std::vector<double> m_fy, m_fyp, m_rootY, m_rootYp;   // full; m_rootY(p) made with m_revRoots
    // the blocks whose discretes withCtx() wrote, for the parts that follow what changed: the
    // expansion while resting, the id mask and the live roots each read it (discrete_changes.hpp)
    dae::DiscreteJournal m_journal{m_sys};
    const int m_expandReader = m_journal.addReader(), m_maskReader = m_journal.addReader(),
              m_rootReader = m_journal.addReader();
    bool m_expandAll = false;                  // the next syncFull() expands everything (not only the moving part)
    std::vector<int> m_changedDisc;            // syncFull(): the blocks whose discretes changed since
    std::vector<int> m_maskChanged;            // idMask(): the same since the last mask
    bool m_fullStale = false;                  // m_fy, m_fyp lag behind IDA's vectors
    dae::DifferentialMask m_mask{m_sys};       // IDA's id, full, kept between restarts
    static constexpr int kOneStepMisses = 8;   // consistentByOneStep() given up after these in a row
    int m_oneStepMisses = 0;
    bool m_indexOneFactored = false;   // A and ls hold the index-1 matrix of the last calcIC (RestartInput)
    bool m_rateDiagonal = false;       // m_diagonal holds it after consistentRates() (RestartInput::diagonal)
    std::vector<double> m_diagonal;
    Matrix m_A;   // fullSystem()
    LinearSolver m_ls;
    IdaMemory m_mem;
    bool m_sparse = false;
    const bool m_everyRow = m_sink.wantsEveryRow();
    std::vector<double> m_disc, m_before, m_values, m_idValues, m_row, m_next;
    unsigned long m_discVersion = 1;                 // changes with m_disc (dae::State::discreteVersion)
    std::vector<double> m_impulse, m_blockImpulse;   // per unknown / per own variable of one block
    // the blocks with scheduled time events, and each one's next (m_next, in the same order: a
    // chain of 10,000 masses has none, and kept 0.3 MB of infinities when it was per block)
    std::vector<int> m_timeBlocks, m_settleBlocks;
    // root finding sees only the live event functions (Block::liveEvents): IDA's root k is the
    // network's event function m_liveRoots[k], of block m_rootBlock[k]
    std::vector<int> m_liveRoots, m_rootBlock, m_rootsFound;
    // the blocks whose events the restart under way follows: filled by handleRoots() and
    // handleTimeEvents(), emptied when the step-over or restart that follows is done (eventDone())
    std::vector<int> m_eventBlocks;
    std::vector<char> m_changedAtEvent;   // per block: it changed its discretes at this event (project())
    // IDA's root j is live root m_idaRoots[j]: while resting, an affine root over resting unknowns
    // alone is a constant and left out
    std::vector<int> m_idaRoots;
    RestartScratch m_restartScratch;
    ProjectionWorkspace m_projection;
    std::vector<double> m_savedY, m_savedYp;   // IDA's values while recordConsistent() records
    // per live root: it reads a moving unknown (or is not affine), as of m_slot version
    // m_movesVersion; initRoots() recomputes it for the blocks that changed, not for all 10,000
    std::vector<char> m_rootMoves;
    unsigned long m_slotVersion = 0, m_movesVersion = ~0UL;
    bool rootMoves(int k) const;
    std::vector<double> m_g;   // every event function (rootFn, made with m_revRoots)
    std::vector<char> m_liveFlags;
    // Live roots in affine form (Block::affineEvent) are rows over IDA's y, built in initRoots:
    // root k is the smallest of its rows [m_rootRows[k], m_rootRows[k + 1]), a row r is
    // (m_rowConstant[r] + sum value * y[column]) + m_rowNudge[r] over entries [m_rowFirst[r],
    // m_rowFirst[r + 1]); the others (m_rootAffine[k] = 0) come from an expansion and their
    // blocks (m_rootEvaluated) in rootFn.
    std::vector<char> m_rootAffine;
    std::vector<int> m_rootEvaluated, m_rootRows, m_rowFirst, m_rootColumn;
    std::vector<double> m_rowConstant, m_rowNudge, m_rootValue;
    std::vector<dae::ReducedEvaluator::Term> m_terms;
    void addRootForm(int block, const AffineEvent* form);
    // What a block's live roots and rows are follows its discrete state alone (Block::liveEvents,
    // affineEvent), so initRoots() evaluates only the blocks whose discretes changed since the
    // last call (m_discChanged, from m_journal), in place (run_roots.cpp); m_old holds the last call's arrays while
    // buildRoots() copies the others, and after it, while they are small, their storage for the next build.
    struct RootArrays {
        std::vector<int> live, block, rootRows, rowFirst, column, blockFirst, blockCount;
        std::vector<char> affine;
        std::vector<double> constant, nudge, value;
    };
    RootArrays m_old;
    void swapRoots(RootArrays& a);   // every array but the blocks' ranges exchanged with a's
    void clearRoots();
    bool addBlockRoots(int block, double t);
    bool appendRoots(const RootArrays& from, int k0, int k1, int block);
    void buildRoots(double t, bool incremental);
    bool rootsInPlace(double t, std::vector<int>& changed);   // changed: the event blocks written
    std::vector<int> m_eventIndex;                            // per block: its place in eventBlocks, -1
    // per event block (in eventBlocks' order) its live roots [m_blockFirst[e], + m_blockCount[e]);
    // between them may lie dead ones, m_deadRoots in all (rootsInPlace)
    std::vector<int> m_blockFirst, m_blockCount;
    int m_deadRoots = 0;
    std::vector<char> m_rootChanged;   // per block, while initRoots() runs
    std::vector<int> m_discChanged;    // the blocks whose discretes changed since the last initRoots()
    std::vector<EventRecord> m_log;
    double m_lastStep = 0.0;
    double m_largestStep = 0.0;
    std::string m_idaMessage;
    std::exception_ptr m_error;
    RunGuard m_guard;
    RunStats m_stats, m_live;
    // the resting part (run_resting.cpp)
    bool m_resting = false;
    std::vector<int> m_active, m_slot;             // IDA's index -> reduced; reduced -> IDA's index or -1
    std::vector<int> m_frontier, m_grow;           // resting rows that read a moving unknown; rows to move
    std::vector<int> m_readsFirst, m_reads;        // per reduced row, the unknowns it reads (the pattern's rows)
    std::vector<double> m_restCoefficient;         // ReducedEvaluator::restCoefficients
    std::vector<double> m_drift;                   // per resting row: a bound on its unknown's drift so far
    double m_restT = 0.0;                          // the time m_drift was last brought forward to
    std::vector<double> m_yr, m_ypr, m_Fr, m_jr;   // a callback's reduced point, rows, Jacobian values
    std::vector<int> m_subColPtr, m_subRowIdx, m_subSource;   // the moving part's pattern, and where from
    std::vector<char> m_onFrontier;                           // per reduced row
    // watchResting() after an event: the operator's changed rows, the resting ones among them
    bool m_checkAll = true;
    std::vector<int> m_changedRows, m_changedRates, m_check, m_rows;
    std::vector<double> m_coefficient;
    NVector m_ya, m_ypa, m_ida;   // IDA's vectors while resting
    std::vector<int> m_qMoving;   // the quadratures integrated while resting (the others rest)
    std::vector<char> m_qRests;   // per quadrature: not in m_qMoving
    Matrix m_Aa;                  // IDA's matrix and solver while resting (m_A, m_ls: restarts)
    LinearSolver m_lsa;
};

}   // namespace endstop::core::solver::detail
