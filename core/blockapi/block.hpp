// SPDX-License-Identifier: GPL-3.0-or-later
// Block: ports + parameters + variables + equations + events, declared as members of one class.
// This header is the block author's contract; how a block stores what it declares is private to
// core/blockapi (block_storage.hpp).
//
// A block is constructed with its parameter values (SI; absent keys take defaults). Its members
// declare, in order, parameters, ports and variables through the protected helpers, so a port may
// depend on a parameter (conditional ports, a sum's number of inputs). The equations are a member
// template over the scalar type; BlockT<Derived> instantiates them for every scalar the engine
// uses. Blocks keep no mutable state: modes and counters are discrete states held by the engine.
#pragma once

#include "core/ad/scalar.hpp"
#include "core/blockapi/descriptor.hpp"
#include "core/blockapi/diagnostic.hpp"
#include "core/blockapi/eq.hpp"
#include "core/blockapi/event_ctx.hpp"
#include "core/blockapi/handles.hpp"
#include "core/blockapi/pooled.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace endstop::core {

using Jet = ad::Grad<8>;   // directions per Jacobian pass; larger blocks take several passes

struct RecordedVar {         // a recorded variable in declaration order
    bool computed = false;   // true: Block::record() fills it; false: an own variable
    int index = -1;          // into computed() or vars()
    bool operator==(const RecordedVar&) const = default;
};

struct InitialAcross {   // a block's wish for the initial across value of a node
    Port port;
    double value = 0.0;
    double weight = 1.0;   // inertia: several wishes on one node are averaged by momentum
};

// The offset a block adds to an event function towards the side of its current mode, so that a
// function that is exactly zero after an event still has a sign and IDA does not set it aside.
// Far below any position or force, and far above where IDA's sign test underflows (Run::rootFn).
inline constexpr double kEventNudge = 1e-100;

// An event function that is affine while the discrete state stays as it is (Block::affineEvent):
//     g = (constant + sum of coefficient * value) + nudge,
// each value an own variable or the across variable (or input) at a port. nudge comes last, so
// that a tiny offset that keeps g off zero at an exact crossing survives the sum. Or the smaller
// of two such forms (orMin(): the terms added after it, constant2 and nudge2 make the second), for
// one function that watches two bounds.
struct AffineEvent {
    struct Term {
        int var = -1;    // an own variable, or
        int port = -1;   // the value at a port (0 at a reference or an open input)
        double coefficient = 0.0;
    };
    double constant = 0.0, nudge = 0.0;
    std::array<Term, 4> terms{};
    int count = 0;
    int split = -1;   // >= 0: terms [split, count) are the second form's
    double constant2 = 0.0, nudge2 = 0.0;

    void add(Var v, double c) { terms.at(static_cast<std::size_t>(count++)) = {v.index, -1, c}; }
    void add(Port p, double c) { terms.at(static_cast<std::size_t>(count++)) = {-1, p.index, c}; }
    void orMin(double c2, double n2) {
        split = count;
        constant2 = c2;
        nudge2 = n2;
    }
    double value(const Eq<double>& e) const {
        const auto form = [&](double c, int from, int to, double n) {
            for (int k = from; k < to; ++k) {
                const Term& t = terms[static_cast<std::size_t>(k)];
                c += t.coefficient * (t.var >= 0 ? e[Var{t.var}] : e.across(Port{t.port}));
            }
            return c + n;
        };
        if (split < 0) return form(constant, 0, count, nudge);
        return std::min(form(constant, 0, split, nudge), form(constant2, split, count, nudge2));
    }
};

class Block : public Pooled {
public:
    Block(BlockInfo info, ParamValues given);
    virtual ~Block();
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;

    // ---- what a block is: its descriptors, shared by every block of one shape ----------------
    const BlockInfo& info() const;
    const std::vector<ParamDesc>& params() const;
    const ParamValues& values() const;   // resolved (given or default), SI
    const std::vector<PortDesc>& ports() const;
    bool portPresent(int index) const;
    int portIndex(std::string_view name) const;   // -1 if none (or hidden)
    int conservingCount() const;
    int outputVar(int portIndex) const;
    const std::vector<VarDesc>& vars() const;
    const std::vector<VarDesc>& computed() const;
    const std::vector<DiscreteDesc>& discretes() const;
    const std::vector<RecordedVar>& recorded() const;
    const VarDesc& describe(const RecordedVar& r) const;
    const std::vector<InitialAcross>& initialAcross() const;
    double initialValue(int var) const;
    double initialDiscrete(int discrete) const;   // per discretes() entry
    bool grounds() const;   // a reference: its node has across value 0

    // ---- parameter values, read by the equations at every residual: inline -------------------
    double real(Param p) const {
        const auto i = static_cast<std::size_t>(p.index);
        return i < kInlineReals ? m_reals[i] : m_moreReals[i - kInlineReals];
    }
    const double* realsData() const { return m_reals.data(); }   // for the evaluator to prefetch
    const std::vector<double>& vec(VecParam p) const { return std::get<std::vector<double>>(valueAt(p.value)); }
    const std::string& key(Choice c) const { return std::get<std::string>(valueAt(c.value)); }
    bool is(Choice c, std::string_view choiceKey) const { return key(c) == choiceKey; }
    const std::string& text(TextParam p) const { return std::get<std::string>(valueAt(p.value)); }

    // Range checks of visible parameters, construction errors, then validateMore().
    Diagnostics validate() const;
    // Called by the registry once the block is constructed: shares its descriptors with the next
    // block of the same type and parameters, takes those of an earlier block of its type that
    // declared the same (different values, same descriptors), and frees what only the
    // construction needed.
    void publishShape();

    // ---- what a block implements ---------------------------------------------------------------
    // The equations, through BlockT<Derived>: template <class S> void equations(Eq<S>&) const.
    virtual void eval(Eq<double>& e) const = 0;
    virtual void eval(Eq<Jet>& e) const = 0;
    virtual void eval(Eq<ad::Tan<double>>& e) const = 0;
    virtual void eval(Eq<ad::Tan<Jet>>& e) const = 0;
    virtual void eval(Eq<ad::Sym>& e) const = 0;

    // Acceleration-level constraints state their velocity-level form here for the momentum-
    // conserving projection at events: residual(f) = (v_R - v_C) - target, for each constraint
    // force f whose row in the current mode holds no f (docs/engine.md, "Locked constraints and impacts").
    virtual bool hasImpulseRows() const { return false; }
    virtual void impulseRows(Eq<Jet>& /*e*/) const {}
    virtual void impulseRows(Eq<ad::Sym>& /*e*/) const {}

    // Events: a fixed number of event functions; their zero crossings call onEvent() with the
    // direction of the crossing (EventDirection, event_ctx.hpp).
    virtual int eventCount() const { return 0; }
    virtual void eventFunctions(const Eq<double>& /*e*/, std::span<double> /*g*/) const {}
    virtual void onEvent(EventCtx& /*ctx*/, int /*which*/, int /*direction*/) const {}
    // Which event functions can reach zero in the current discrete state. The others must hold a
    // nonzero constant until the next event: the solver leaves them out of its root finding and
    // asks again after every event. First the window they lie in, [first, last) within
    // [0, eventCount()] (those outside are dead; all of them by default), then which of the window
    // (live[i] = 1 for function first + i; all of it by default). A block with many functions and
    // few live (a spring table's breakpoints) then costs its window at every restart, not its count.
    struct EventWindow {
        int first = 0, last = 0;
    };
    virtual EventWindow liveWindow(const Eq<double>& /*e*/) const { return {0, eventCount()}; }
    virtual void liveEvents(const Eq<double>& /*e*/, std::span<char> live) const {
        std::fill(live.begin(), live.end(), char(1));
    }
    // Event function `which` as an affine form in the current discrete state (AffineEvent): the
    // solver then evaluates it as a sparse row over its unknowns, without calling the block, until
    // the next event. Must give eventFunctions()'s value. false (the default): not affine.
    virtual bool affineEvent(const Eq<double>& /*e*/, int /*which*/, AffineEvent& /*out*/) const { return false; }
    // Whether the block's constraintForce() variables hold a lock in the current discrete state
    // (asked at every consistent restart). Always, by default.
    virtual bool holding(const Eq<double>& /*e*/) const { return true; }
    // Whether its locks hold by friction, a finite force: its velocityConstraints() then join an
    // event's projection only when the block changed its modes at that event (it locks there),
    // and an impulse from another block's impact passes through it (settle() finds it moving).
    // A rigid lock (a stop in contact) carries impulses; false by default.
    virtual bool holdsByFriction() const { return false; }
    // After every event (and at the start) the engine iterates settle() over the blocks that
    // ask for it, with the algebraic state recomputed, until no block changes its discrete state.
    virtual bool hasSettle() const { return false; }
    virtual void settle(EventCtx& /*ctx*/) const {}
    // Whether its events can change its rows continuously across (EventCtx::continuousAcross):
    // at its roots the run then reads IDA's history before the change. False by default.
    virtual bool changesAcross() const { return false; }
    // Scheduled discontinuities: the next time strictly after t (infinity if none) and what
    // happens there. initModes() sets the discrete state for the start time.
    virtual double nextTimeEvent(double /*t*/) const { return std::numeric_limits<double>::infinity(); }
    virtual void onTimeEvent(EventCtx& /*ctx*/) const {}
    virtual void initModes(EventCtx& /*ctx*/) const {}
    // Computed recorded variables, from the solution; out has computed().size() entries.
    virtual void record(const Eq<double>& /*e*/, std::span<double> /*out*/) const {}

protected:
    // ---- what a block declares, in member initialisers (a block of a known shape only counts) --
    class ParamBuilder;
    template <class H> class Builder;
    class VarBuilder;
    class PortBuilder;
    struct ChoiceView {
        std::string_view key, label;
    };

    ParamBuilder real(std::string_view key, std::string_view label, std::string_view unit, double def);
    Builder<Choice> choice(std::string_view key, std::string_view label, std::string_view def,
                           std::initializer_list<ChoiceView> options);
    Builder<VecParam> vector(std::string_view key, std::string_view label, std::string_view unit,
                             std::vector<double> def);
    Builder<TextParam> text(std::string_view key, std::string_view label, std::string_view def);
    PortBuilder conserving(std::string_view name, Domain d, std::string_view label);
    PortBuilder input(std::string_view name, std::string_view label, std::string_view unit);
    PortBuilder output(std::string_view name, std::string_view label, std::string_view unit);
    VarBuilder state(std::string_view name, std::string_view label, std::string_view unit);
    VarBuilder algebraic(std::string_view name, std::string_view label, std::string_view unit);
    Computed computed(std::string_view name, std::string_view label, std::string_view unit);
    Discrete discrete(std::string_view name, double initial = 0.0, int modes = 0);
    Var outVar(Port p) const { return Var{p.var}; }   // the variable an output port carries
    void startAcross(Port p, double value, double weight);
    void makeReference();
    void setInitial(Var v, double value);
    void fail(std::string param, std::string message) const;   // a construction-time error
    virtual void validateMore(Diagnostics& /*out*/) const {}
    Diagnostic paramError(const std::string& key, std::string message) const;
    Diagnostic paramWarning(const std::string& key, std::string message) const;   // the run goes on

private:
    struct Shape;          // what every block of one shape shares (block_storage.hpp)
    struct Instance;       // what is this block's own, cold (block_storage.hpp)
    struct Construction;   // what only its construction needs (block_storage.hpp)

    bool building() const { return !m_shared; }
    const ParamValue& valueAt(int slot) const { return m_values[static_cast<std::size_t>(slot)]; }
    int valueSlot(int index) const;                          // a parameter that is no real: its place in m_values
    const ParamValue* resolvedAt(std::size_t index) const;   // nullptr for a real or one not resolved yet
    ParamValue valueOf(std::size_t index) const;             // any parameter's resolved value
    ParamValue resolved(const ParamDesc& d) const;
    void checkType(int index);
    void storeValue(int index, ParamValue v);
    bool visible(const std::optional<Visibility>& rule) const;
    ParamDesc& paramAt(int index);
    Visibility visibility(Choice c, std::initializer_list<const char*> values) const;
    int declareParam(std::string_view key, std::string_view label, ParamType type, std::string_view unit,
                     ParamValue def);
    int declarePort(std::string_view name, std::string_view label, PortKind kind, Domain d, std::string_view unit);
    int declareVar(std::string_view name, std::string_view label, std::string_view unit, VarKind kind);

    std::shared_ptr<Shape> m_shape;   // written only while building (not shared)
    bool m_shared = false;            // m_shape came from the cache: declarations only count
    std::unique_ptr<Instance> m_i;
    std::vector<ParamValue> m_values;   // resolved values of the parameters that are not reals, in order
    static constexpr std::size_t kInlineReals = 14;
    std::vector<double> m_moreReals;              // real parameters from index kInlineReals on
    std::array<double, kInlineReals> m_reals{};   // real parameters by index (NaN for the other kinds)
};

// ---- declaration builders: the chained options of a declaration (core/blockapi/block_declare.cpp)

class Block::ParamBuilder {
public:
    ParamBuilder(Block& b, int i) : m_b(b), m_i(i) {}
    ParamBuilder& above(double x);
    ParamBuilder& atLeast(double x);
    ParamBuilder& below(double x);
    ParamBuilder& atMost(double x);
    ParamBuilder& group(std::string_view g);
    ParamBuilder& help(std::string_view h);
    ParamBuilder& visibleWhen(Choice c, std::initializer_list<const char*> values);
    ParamBuilder& structural();   // changes the structure: not tunable
    ParamBuilder& anyUnit();      // a signal's value
    operator Param();             // NOLINT: ends the declaration
private:
    Block& m_b;
    int m_i;
};

template <class H>   // H: Choice, VecParam or TextParam
class Block::Builder {
public:
    Builder(Block& b, int i) : m_b(b), m_i(i) {}
    Builder& group(std::string_view g);
    Builder& help(std::string_view h);
    Builder& visibleWhen(Choice c, std::initializer_list<const char*> values);
    Builder& atLeast(double x);
    Builder& above(double x);
    operator H();   // NOLINT: ends the declaration
private:
    Block& m_b;
    int m_i;
};

class Block::VarBuilder {
public:
    VarBuilder(Block& b, int i) : m_b(b), m_i(i) {}
    VarBuilder& recorded();
    VarBuilder& startsAt(double value);
    // A state that only accumulates (x' = power): left out of IDA's local error test, so it is
    // integrated on the steps the other unknowns need instead of dictating tiny ones near zero.
    VarBuilder& quadrature();
    // The force that holds a lock (an acceleration constraint with constraint force mixing): while
    // Block::holding() says the lock holds, it is left out of IDA's error and Newton tests, as a
    // dummy derivative is. The states it acts on are tested; how redundant locks on one motion
    // split it is set by the mixing alone, below the round-off of a BDF derivative (docs/engine.md,
    // "Locked constraints and impacts").
    VarBuilder& constraintForce();
    operator Var() const { return Var{m_i}; }   // NOLINT
private:
    Block& m_b;
    int m_i;
};

class Block::PortBuilder {
public:
    PortBuilder(Block& b, int i) : m_b(b), m_i(i) {}
    PortBuilder& visibleWhen(Choice c, std::initializer_list<const char*> values);
    PortBuilder& optional();   // an input that reads 0 when left open
    PortBuilder& recorded();   // an output port whose value is recorded under the port's name
    operator Port() const;     // NOLINT
private:
    PortDesc& p();
    Block& m_b;
    int m_i;
};

// ---- CRTP glue -------------------------------------------------------------------------------

template <class D> class BlockT : public Block {
public:
    using Block::Block;
    void eval(Eq<double>& e) const override { self().equations(e); }
    void eval(Eq<Jet>& e) const override { self().equations(e); }
    void eval(Eq<ad::Tan<double>>& e) const override { self().equations(e); }
    void eval(Eq<ad::Tan<Jet>>& e) const override { self().equations(e); }
    void eval(Eq<ad::Sym>& e) const override { self().equations(e); }

    bool hasImpulseRows() const override {
        return requires(const D& d, Eq<Jet>& e) { d.velocityConstraints(e); };
    }
    void impulseRows(Eq<Jet>& e) const override { impulse(e); }
    void impulseRows(Eq<ad::Sym>& e) const override { impulse(e); }

private:
    const D& self() const { return static_cast<const D&>(*this); }
    template <class S> void impulse(Eq<S>& e) const {
        if constexpr (requires(const D& d) { d.velocityConstraints(e); }) self().velocityConstraints(e);
    }
};

}   // namespace endstop::core
