// SPDX-License-Identifier: GPL-3.0-or-later
// Block: ports + parameters + variables + equations + events, declared as members of one class.
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

#include <initializer_list>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace endstop::core {

using Jet = ad::Grad<8>;   // directions per Jacobian pass; larger blocks take several passes

struct RecordedVar {   // a recorded variable in declaration order
    bool computed = false;   // true: Block::record() fills it; false: an own variable
    int index = -1;          // into computed() or vars()
};

struct InitialAcross {   // a block's wish for the initial across value of a node
    Port port;
    double value = 0.0;
    double weight = 1.0;   // inertia: several wishes on one node are averaged by momentum
};

class Block {
public:
    Block(BlockInfo info, ParamValues given);
    virtual ~Block() = default;
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;

    const BlockInfo& info() const { return m_shape->info; }
    const std::vector<PortDesc>& ports() const { return m_shape->ports; }
    bool portPresent(int index) const { return m_i->portPresent[static_cast<std::size_t>(index)]; }
    int portIndex(std::string_view name) const;   // -1 if none (or hidden)
    int conservingCount() const { return m_shape->conserving; }
    const std::vector<ParamDesc>& params() const { return m_shape->params; }
    const ParamValues& values() const;   // resolved (given or default), SI
    const std::vector<VarDesc>& vars() const { return m_shape->vars; }
    const std::vector<VarDesc>& computed() const { return m_shape->computed; }
    const std::vector<DiscreteDesc>& discretes() const { return m_shape->discretes; }
    const std::vector<RecordedVar>& recorded() const { return m_shape->recorded; }
    const VarDesc& describe(const RecordedVar& r) const {
        return r.computed ? m_shape->computed[static_cast<std::size_t>(r.index)] : m_shape->vars[static_cast<std::size_t>(r.index)];
    }
    int outputVar(int portIndex) const { return m_shape->outputVar[static_cast<std::size_t>(portIndex)]; }
    const std::vector<InitialAcross>& initialAcross() const { return m_i->initialAcross; }
    double initialValue(int var) const { return m_i->initial[static_cast<std::size_t>(var)]; }
    bool grounds() const { return m_shape->grounds; }   // a reference: its node has across value 0
    // Blocks of one type built from the same parameters share their descriptors; this names them.
    const std::string& shapeKey() const { return m_shape->key; }

    double real(Param p) const {
        const auto i = static_cast<std::size_t>(p.index);
        return i < kInlineReals ? m_reals[i] : m_moreReals[i - kInlineReals];
    }
    const double* realsData() const { return m_reals.data(); }   // for the evaluator to prefetch

    // Blocks live in a pool of their own, packed together: the evaluator visits every block at
    // every residual, and the cold descriptors allocated in between would scatter them.
    static void* operator new(std::size_t size);
    static void operator delete(void* p, std::size_t size) noexcept;
    const std::vector<double>& vec(VecParam p) const { return std::get<std::vector<double>>(valueAt(p.index)); }
    const std::string& key(Choice c) const { return std::get<std::string>(valueAt(c.index)); }
    bool is(Choice c, std::string_view choiceKey) const { return key(c) == choiceKey; }
    const std::string& text(TextParam p) const { return std::get<std::string>(valueAt(p.index)); }

    // Range checks of visible parameters, construction errors, then validateMore().
    Diagnostics validate() const;
    // Called by the registry once the block is constructed: shares its descriptors with the next
    // block of the same shape key.
    void publishShape();

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

    // Events: a fixed number of event functions; their zero crossings call onEvent().
    virtual int eventCount() const { return 0; }
    virtual void eventFunctions(const Eq<double>& /*e*/, std::span<double> /*g*/) const {}
    virtual void onEvent(EventCtx& /*ctx*/, int /*which*/, int /*direction*/) const {}
    // After every event (and at the start) the engine iterates settle() over the blocks that
    // ask for it, with the algebraic state recomputed, until no block changes its discrete state.
    virtual bool hasSettle() const { return false; }
    virtual void settle(EventCtx& /*ctx*/) const {}
    // Scheduled discontinuities: the next time strictly after t (infinity if none) and what
    // happens there. initModes() sets the discrete state for the start time.
    virtual double nextTimeEvent(double /*t*/) const { return std::numeric_limits<double>::infinity(); }
    virtual void onTimeEvent(EventCtx& /*ctx*/) const {}
    virtual void initModes(EventCtx& /*ctx*/) const {}
    // Computed recorded variables, from the solution; out has computed().size() entries.
    virtual void record(const Eq<double>& /*e*/, std::span<double> /*out*/) const {}

protected:
    class ParamBuilder;
    template <class H> class Builder;
    class VarBuilder;
    class PortBuilder;
    struct ChoiceView {
        std::string_view key, label;
    };

    // declarations, used in member initialisers (a block of a known shape only counts them)
    ParamBuilder real(std::string_view key, std::string_view label, std::string_view unit, double def);
    Builder<Choice> choice(std::string_view key, std::string_view label, std::string_view def,
                           std::initializer_list<ChoiceView> options);
    Builder<VecParam> vector(std::string_view key, std::string_view label, std::string_view unit, std::vector<double> def);
    Builder<TextParam> text(std::string_view key, std::string_view label, std::string_view def);
    PortBuilder conserving(std::string_view name, Domain d, std::string_view label);
    PortBuilder input(std::string_view name, std::string_view label, std::string_view unit);
    PortBuilder output(std::string_view name, std::string_view label, std::string_view unit);
    VarBuilder state(std::string_view name, std::string_view label, std::string_view unit);
    VarBuilder algebraic(std::string_view name, std::string_view label, std::string_view unit);
    Computed computed(std::string_view name, std::string_view label, std::string_view unit);
    Discrete discrete(std::string_view name, double initial = 0.0, int modes = 0);
    Var outVar(Port p) const { return Var{outputVar(p.index)}; }
    void startAcross(Port p, double value, double weight) { m_i->initialAcross.push_back({p, value, weight}); }
    void makeReference() { if (building()) m_shape->grounds = true; }
    void setInitial(Var v, double value) { m_i->initial[static_cast<std::size_t>(v.index)] = value; }
    void fail(std::string param, std::string message) const;   // a construction-time error
    virtual void validateMore(Diagnostics& /*out*/) const {}
    Diagnostic paramError(const std::string& key, std::string message) const;

private:
    // What every block of one type built from the same parameters shares.
    struct Shape {
        std::string key;   // type id and the given parameters
        BlockInfo info;
        std::vector<ParamDesc> params;
        std::vector<PortDesc> ports;
        std::vector<int> outputVar;
        int conserving = 0;
        std::vector<VarDesc> vars;
        std::vector<VarDesc> computed;
        std::vector<DiscreteDesc> discretes;
        std::vector<RecordedVar> recorded;
        bool grounds = false;
    };
    // What is this block's own.
    struct Instance {
        ParamValues given;
        std::vector<ParamValue> byIndex;   // resolved values by parameter index
        mutable std::optional<ParamValues> values;
        std::vector<bool> portPresent;
        std::vector<double> initial;
        std::vector<InitialAcross> initialAcross;
        Diagnostics buildErrors;
        int params = 0, ports = 0, vars = 0, computed = 0, discretes = 0, conserving = 0;   // declared so far
    };

    bool building() const { return !m_shared; }
    // what builders of a known shape write to (one per thread, not one per block)
    static ParamDesc& scratchParam();
    static PortDesc& scratchPort();
    ParamValue resolved(const ParamDesc& d) const;
    void checkType(int index);
    bool visible(const std::optional<Visibility>& rule) const;
    const ParamValue& valueAt(int index) const { return m_i->byIndex[static_cast<std::size_t>(index)]; }
    ParamDesc& paramAt(int index) {
        return building() ? m_shape->params[static_cast<std::size_t>(index)] : scratchParam();
    }
    int declareParam(std::string_view key, std::string_view label, ParamType type, std::string_view unit, ParamValue def);
    int declarePort(std::string_view name, std::string_view label, PortKind kind, Domain d, std::string_view unit);
    int declareVar(std::string_view name, std::string_view label, std::string_view unit, VarKind kind);

    std::shared_ptr<Shape> m_shape;   // written only while building (not shared)
    bool m_shared = false;            // m_shape came from the cache: declarations only count
    std::unique_ptr<Instance> m_i;
    static constexpr std::size_t kInlineReals = 14;
    std::vector<double> m_moreReals;                 // real parameters from index kInlineReals on
    std::array<double, kInlineReals> m_reals{};      // real parameters by index (NaN for the other kinds)
};

// ---- declaration builders --------------------------------------------------------------------

class Block::ParamBuilder {
public:
    ParamBuilder(Block& b, int i) : m_b(b), m_i(i) {}
    ParamBuilder& above(double x) { d().min = x; d().minExclusive = true; return *this; }
    ParamBuilder& atLeast(double x) { d().min = x; d().minExclusive = false; return *this; }
    ParamBuilder& below(double x) { d().max = x; d().maxExclusive = true; return *this; }
    ParamBuilder& atMost(double x) { d().max = x; d().maxExclusive = false; return *this; }
    ParamBuilder& group(std::string_view g) { if (m_b.building()) d().group = g; return *this; }
    ParamBuilder& help(std::string_view h) { if (m_b.building()) d().help = h; return *this; }
    ParamBuilder& visibleWhen(Choice c, std::initializer_list<const char*> values);
    ParamBuilder& structural() { d().tunable = false; return *this; }
    ParamBuilder& anyUnit() { d().anyDimension = true; return *this; }   // a signal's value
    operator Param();   // NOLINT: ends the declaration
private:
    ParamDesc& d() { return m_b.paramAt(m_i); }
    Block& m_b;
    int m_i;
};

template <class H>
class Block::Builder {
public:
    Builder(Block& b, int i) : m_b(b), m_i(i) {}
    Builder& group(std::string_view g) { if (m_b.building()) d().group = g; return *this; }
    Builder& help(std::string_view h) { if (m_b.building()) d().help = h; return *this; }
    Builder& visibleWhen(Choice c, std::initializer_list<const char*> values) {
        if (!m_b.building()) return *this;
        Visibility v{m_b.m_shape->params[static_cast<std::size_t>(c.index)].key, {}};
        for (const char* s : values) v.values.emplace_back(s);
        d().visibleWhen = std::move(v);
        return *this;
    }
    Builder& atLeast(double x) { d().min = x; return *this; }
    Builder& above(double x) { d().min = x; d().minExclusive = true; return *this; }
    operator H() {   // NOLINT
        m_b.checkType(m_i);
        return H{m_i};
    }
private:
    ParamDesc& d() { return m_b.paramAt(m_i); }
    Block& m_b;
    int m_i;
};

class Block::VarBuilder {
public:
    VarBuilder(Block& b, int i) : m_b(b), m_i(i) {}
    VarBuilder& recorded() {
        if (!m_b.building()) return *this;
        auto& v = m_b.m_shape->vars[static_cast<std::size_t>(m_i)];
        if (!v.recorded) m_b.m_shape->recorded.push_back({false, m_i});
        v.recorded = true;
        return *this;
    }
    VarBuilder& startsAt(double value) { m_b.m_i->initial[static_cast<std::size_t>(m_i)] = value; return *this; }
    // A state that only accumulates (x' = power): left out of IDA's local error test, so it is
    // integrated on the steps the other unknowns need instead of dictating tiny ones near zero.
    VarBuilder& quadrature() {
        if (m_b.building()) m_b.m_shape->vars[static_cast<std::size_t>(m_i)].quadrature = true;
        return *this;
    }
    operator Var() const { return Var{m_i}; }   // NOLINT
private:
    Block& m_b;
    int m_i;
};

class Block::PortBuilder {
public:
    PortBuilder(Block& b, int i) : m_b(b), m_i(i) {}
    PortBuilder& visibleWhen(Choice c, std::initializer_list<const char*> values);
    PortBuilder& optional() { p().optional = true; return *this; }
    PortBuilder& recorded();   // an output port whose value is recorded under the port's name
    operator Port() const;     // NOLINT
private:
    PortDesc& p() { return m_b.building() ? m_b.m_shape->ports[static_cast<std::size_t>(m_i)] : Block::scratchPort(); }
    Block& m_b;
    int m_i;
};

// ---- CRTP glue -------------------------------------------------------------------------------

template <class D>
class BlockT : public Block {
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

}  // namespace endstop::core
