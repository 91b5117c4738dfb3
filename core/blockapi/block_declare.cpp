// SPDX-License-Identifier: GPL-3.0-or-later
// Block: the declaration helpers a block calls in its member initialisers, and their builders.
// The first block of a shape writes the descriptors; a block whose shape came from the cache only
// counts its declarations, and its builders write to per-thread scratch descriptors.
#include "core/blockapi/block_storage.hpp"

#include <mutex>
#include <unordered_map>

namespace endstop::core {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }
Unit acrossUnit(Domain d) { return Unit::parse(d == Domain::Rotational ? "rad/s" : "m/s"); }

Unit unitOf(std::string_view text) {
    if (text.empty()) return Unit{};
    // parsing is the costly part of declaring a parameter; symbols repeat endlessly
    static std::mutex mutex;
    static std::unordered_map<std::string, Unit> cache;
    std::lock_guard lock(mutex);
    const auto it = cache.find(std::string(text));
    if (it != cache.end()) return it->second;
    Unit u = Unit::parse(text);
    cache.emplace(std::string(text), u);
    return u;
}

// what builders of a known shape write to (one per thread, not one per block)
ParamDesc& scratchParam() {
    static thread_local ParamDesc scratch;
    return scratch;
}

PortDesc& scratchPort() {
    static thread_local PortDesc scratch;
    return scratch;
}

}   // namespace

ParamDesc& Block::paramAt(int index) { return building() ? m_shape->params[at(index)] : scratchParam(); }

Visibility Block::visibility(Choice c, std::initializer_list<const char*> values) const {
    Visibility v{m_shape->params[at(c.index)].key, {}};
    for (const char* s : values) v.values.emplace_back(s);
    return v;
}

// ---- parameters --------------------------------------------------------------------------------

int Block::declareParam(std::string_view key, std::string_view label, ParamType type, std::string_view unit,
                        ParamValue def) {
    const int index = m_i->construction->params++;
    if (building()) {
        ParamDesc d;
        d.key = key;
        d.label = label;
        d.type = type;
        d.unit = unitOf(unit);
        d.defaultValue = std::move(def);
        d.tunable = type == ParamType::Real;
        m_shape->params.push_back(std::move(d));
    }
    return index;
}

Block::ParamBuilder Block::real(std::string_view key, std::string_view label, std::string_view unit, double def) {
    return {*this, declareParam(key, label, ParamType::Real, unit, def)};
}

Block::Builder<Choice> Block::choice(std::string_view key, std::string_view label, std::string_view def,
                                     std::initializer_list<ChoiceView> options) {
    const int index = declareParam(key, label, ParamType::Choice, {}, std::string(def));
    if (building())
        for (const ChoiceView& o : options)
            m_shape->params.back().choices.push_back({std::string(o.key), std::string(o.label)});
    return {*this, index};
}

Block::Builder<VecParam> Block::vector(std::string_view key, std::string_view label, std::string_view unit,
                                       std::vector<double> def) {
    return {*this, declareParam(key, label, ParamType::Vector, unit, std::move(def))};
}

Block::Builder<TextParam> Block::text(std::string_view key, std::string_view label, std::string_view def) {
    return {*this, declareParam(key, label, ParamType::Text, {}, std::string(def))};
}

// ---- ports -------------------------------------------------------------------------------------

int Block::declarePort(std::string_view name, std::string_view label, PortKind kind, Domain d, std::string_view unit) {
    const int index = m_i->construction->ports++;
    if (building()) {
        m_shape->portPresent.push_back(true);
        PortDesc p{std::string(name),
                   std::string(label),
                   kind,
                   d,
                   kind == PortKind::Conserving ? acrossUnit(d) : unitOf(unit),
                   false,
                   {}};
        m_shape->ports.push_back(std::move(p));
        m_shape->outputVar.push_back(-1);
    }
    return index;
}

Block::PortBuilder Block::conserving(std::string_view name, Domain d, std::string_view label) {
    return {*this, declarePort(name, label, PortKind::Conserving, d, {})};
}

Block::PortBuilder Block::input(std::string_view name, std::string_view label, std::string_view unit) {
    return {*this, declarePort(name, label, PortKind::Input, Domain::Signal, unit)};
}

Block::PortBuilder Block::output(std::string_view name, std::string_view label, std::string_view unit) {
    const int port = declarePort(name, label, PortKind::Output, Domain::Signal, unit);
    const int var = declareVar(name, label, unit, VarKind::Algebraic);
    if (building()) m_shape->outputVar[at(port)] = var;
    return {*this, port};
}

// ---- variables and discrete states ---------------------------------------------------------------

int Block::declareVar(std::string_view name, std::string_view label, std::string_view unit, VarKind kind) {
    const int index = m_i->construction->vars++;
    m_i->initial.push_back(0.0);
    if (building()) m_shape->vars.push_back({std::string(name), std::string(label), unitOf(unit), kind, false});
    return index;
}

Block::VarBuilder Block::state(std::string_view name, std::string_view label, std::string_view unit) {
    return {*this, declareVar(name, label, unit, VarKind::State)};
}

Block::VarBuilder Block::algebraic(std::string_view name, std::string_view label, std::string_view unit) {
    return {*this, declareVar(name, label, unit, VarKind::Algebraic)};
}

Computed Block::computed(std::string_view name, std::string_view label, std::string_view unit) {
    const int index = m_i->construction->computed++;
    if (building()) {
        m_shape->computed.push_back({std::string(name), std::string(label), unitOf(unit), VarKind::Computed, true});
        m_shape->recorded.push_back({true, index});
    }
    return Computed{index};
}

Discrete Block::discrete(std::string_view name, double initial, int modes) {
    const int index = m_i->construction->discretes++;
    m_i->initialDiscretes.push_back(initial);
    if (building()) m_shape->discretes.push_back({std::string(name), modes});
    return Discrete{index};
}

void Block::startAcross(Port p, double value, double weight) { m_i->initialAcross.push_back({p, value, weight}); }
void Block::makeReference() {
    if (building()) m_shape->grounds = true;
}
void Block::setInitial(Var v, double value) { m_i->initial[at(v.index)] = value; }

// ---- builders ----------------------------------------------------------------------------------

Block::ParamBuilder& Block::ParamBuilder::above(double x) {
    auto& d = m_b.paramAt(m_i);
    d.min = x;
    d.minExclusive = true;
    return *this;
}
Block::ParamBuilder& Block::ParamBuilder::atLeast(double x) {
    auto& d = m_b.paramAt(m_i);
    d.min = x;
    d.minExclusive = false;
    return *this;
}
Block::ParamBuilder& Block::ParamBuilder::below(double x) {
    auto& d = m_b.paramAt(m_i);
    d.max = x;
    d.maxExclusive = true;
    return *this;
}
Block::ParamBuilder& Block::ParamBuilder::atMost(double x) {
    auto& d = m_b.paramAt(m_i);
    d.max = x;
    d.maxExclusive = false;
    return *this;
}
Block::ParamBuilder& Block::ParamBuilder::group(std::string_view g) {
    if (m_b.building()) m_b.paramAt(m_i).group = g;
    return *this;
}
Block::ParamBuilder& Block::ParamBuilder::help(std::string_view h) {
    if (m_b.building()) m_b.paramAt(m_i).help = h;
    return *this;
}
Block::ParamBuilder& Block::ParamBuilder::structural() {
    m_b.paramAt(m_i).tunable = false;
    return *this;
}
Block::ParamBuilder& Block::ParamBuilder::anyUnit() {
    m_b.paramAt(m_i).anyDimension = true;
    return *this;
}

Block::ParamBuilder& Block::ParamBuilder::visibleWhen(Choice c, std::initializer_list<const char*> values) {
    if (m_b.building()) m_b.paramAt(m_i).visibleWhen = m_b.visibility(c, values);
    return *this;
}

Block::ParamBuilder::operator Param() {
    m_b.checkType(m_i);
    return Param{m_i};
}

template <class H> Block::Builder<H>& Block::Builder<H>::group(std::string_view g) {
    if (m_b.building()) m_b.paramAt(m_i).group = g;
    return *this;
}
template <class H> Block::Builder<H>& Block::Builder<H>::help(std::string_view h) {
    if (m_b.building()) m_b.paramAt(m_i).help = h;
    return *this;
}
template <class H>
Block::Builder<H>& Block::Builder<H>::visibleWhen(Choice c, std::initializer_list<const char*> values) {
    if (m_b.building()) m_b.paramAt(m_i).visibleWhen = m_b.visibility(c, values);
    return *this;
}
template <class H> Block::Builder<H>& Block::Builder<H>::atLeast(double x) {
    m_b.paramAt(m_i).min = x;
    return *this;
}
template <class H> Block::Builder<H>& Block::Builder<H>::above(double x) {
    auto& d = m_b.paramAt(m_i);
    d.min = x;
    d.minExclusive = true;
    return *this;
}
template <class H> Block::Builder<H>::operator H() {
    m_b.checkType(m_i);
    return H{m_i, m_b.valueSlot(m_i)};
}

template class Block::Builder<Choice>;
template class Block::Builder<VecParam>;
template class Block::Builder<TextParam>;

Block::VarBuilder& Block::VarBuilder::recorded() {
    if (!m_b.building()) return *this;
    auto& v = m_b.m_shape->vars[at(m_i)];
    if (!v.recorded) m_b.m_shape->recorded.push_back({false, m_i});
    v.recorded = true;
    return *this;
}

Block::VarBuilder& Block::VarBuilder::startsAt(double value) {
    m_b.m_i->initial[at(m_i)] = value;
    return *this;
}

Block::VarBuilder& Block::VarBuilder::quadrature() {
    if (m_b.building()) m_b.m_shape->vars[at(m_i)].quadrature = true;
    return *this;
}

Block::VarBuilder& Block::VarBuilder::constraintForce() {
    if (m_b.building()) m_b.m_shape->vars[at(m_i)].constraintForce = true;
    return *this;
}

PortDesc& Block::PortBuilder::p() { return m_b.building() ? m_b.m_shape->ports[at(m_i)] : scratchPort(); }

Block::PortBuilder& Block::PortBuilder::visibleWhen(Choice c, std::initializer_list<const char*> values) {
    if (m_b.building()) p().visibleWhen = m_b.visibility(c, values);
    return *this;
}

Block::PortBuilder& Block::PortBuilder::optional() {
    p().optional = true;
    return *this;
}

Block::PortBuilder& Block::PortBuilder::recorded() {
    if (!m_b.building()) return *this;
    const int v = m_b.m_shape->outputVar[at(m_i)];
    if (v >= 0 && !m_b.m_shape->vars[at(v)].recorded) {
        m_b.m_shape->vars[at(v)].recorded = true;
        m_b.m_shape->recorded.push_back({false, v});
    }
    return *this;
}

Block::PortBuilder::operator Port() const {
    const PortDesc& d = m_b.m_shape->ports[at(m_i)];
    const bool present = m_b.visible(d.visibleWhen);
    if (m_b.building()) m_b.m_shape->portPresent[at(m_i)] = present;
    int conserving = -1;
    if (d.kind == PortKind::Conserving) {
        conserving = m_b.m_i->construction->conserving++;
        if (m_b.building()) m_b.m_shape->conserving = m_b.m_i->construction->conserving;
    }
    return Port{m_i, conserving, present, m_b.m_shape->outputVar[at(m_i)]};
}

}   // namespace endstop::core
