// SPDX-License-Identifier: GPL-3.0-or-later
// Block: construction, the shared shape, descriptor accessors, resolved values and validation.
// The declaration helpers and their builders are in block_declare.cpp.
#include "core/blockapi/block_storage.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace endstop::core {

namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Shapes by key, shared by every block of that key. Bounded: a tuning session creates a key per
// value tried, so the cache is emptied when it grows large (blocks keep their own reference).
class ShapeCache {
public:
    template <class Shape> std::shared_ptr<Shape> find(const std::string& key) {
        std::lock_guard lock(m_mutex);
        const auto it = m_shapes.find(key);
        return it == m_shapes.end() ? nullptr : std::static_pointer_cast<Shape>(it->second);
    }
    // A shape just declared, under its key: or, if a shape of its type already published declares
    // the same (blocks whose real parameters differ mostly do), that one instead, so that a chain
    // of 10,000 springs of 10,000 stiffnesses holds one set of descriptors, not 10,000.
    template <class Shape> std::shared_ptr<Shape> publish(std::shared_ptr<Shape> fresh) {
        std::lock_guard lock(m_mutex);
        if (m_shapes.size() >= kMax) m_shapes.clear(), m_families.clear();
        std::vector<std::shared_ptr<void>>& family =
            m_families[fresh->info.typeId + '#' + std::to_string(fresh->info.typeVersion)];
        for (const std::shared_ptr<void>& c : family) {
            std::shared_ptr<Shape> known = std::static_pointer_cast<Shape>(c);
            if (sameDeclarations(*known, *fresh)) {
                m_shapes.emplace(fresh->key, known);
                return known;
            }
        }
        if (family.size() >= kFamily) family.erase(family.begin());   // declarations that follow a real
        family.push_back(fresh);
        m_shapes.emplace(fresh->key, fresh);
        return fresh;
    }

private:
    template <class Shape> static bool sameDeclarations(const Shape& a, const Shape& b) {
        return a.info == b.info && a.params == b.params && a.ports == b.ports && a.portPresent == b.portPresent &&
               a.outputVar == b.outputVar && a.conserving == b.conserving && a.vars == b.vars &&
               a.computed == b.computed && a.discretes == b.discretes && a.recorded == b.recorded &&
               a.grounds == b.grounds;
    }
    static constexpr std::size_t kMax = 4096;
    static constexpr std::size_t kFamily = 8;   // shapes compared per type
    std::mutex m_mutex;
    std::unordered_map<std::string, std::shared_ptr<void>> m_shapes;
    std::unordered_map<std::string, std::vector<std::shared_ptr<void>>> m_families;   // by type and version
};

ShapeCache& shapes() {
    static ShapeCache* c = new ShapeCache;
    return *c;
}

// The cache's key: the type, its version and the given parameters (appendKey, exact and cheap)
std::string shapeKey(const BlockInfo& info, const ParamValues& given) {
    std::string key = std::to_string(info.typeVersion) + '@';
    appendKey(key, "", info.typeId);
    for (const auto& [k, v] : given) appendKey(key, k, v);
    return key;
}

}   // namespace

Block::Block(BlockInfo info, ParamValues given) : m_i(std::make_unique<Instance>()) {
    std::string key = shapeKey(info, given);
    m_i->construction = std::make_unique<Construction>();
    m_i->construction->given = std::move(given);
    m_shape = shapes().find<Shape>(key);
    m_shared = m_shape != nullptr;
    if (!m_shared) {
        m_shape = std::make_shared<Shape>();
        m_shape->key = std::move(key);
        m_shape->info = std::move(info);
    } else {   // sized once: what a shape declares is known
        m_i->initial.reserve(m_shape->vars.size());
        m_i->initialDiscretes.reserve(m_shape->discretes.size());
        m_values.reserve(at(valueSlot(static_cast<int>(m_shape->params.size()))));
    }
}

Block::~Block() = default;

void Block::publishShape() {
    if (m_i->construction) {   // of the given parameters only the unknown keys are still wanted
        for (const auto& [key, value] : m_i->construction->given) {
            const bool known = std::any_of(m_shape->params.begin(), m_shape->params.end(),
                                           [&](const ParamDesc& d) { return d.key == key; });
            if (!known)
                m_i->buildErrors.push_back(paramError(key, "unknown parameter for block type " + m_shape->info.typeId));
        }
        m_i->construction.reset();
        m_values.shrink_to_fit();
        m_i->initial.shrink_to_fit();
        m_i->initialDiscretes.shrink_to_fit();
        m_i->initialAcross.shrink_to_fit();
    }
    if (m_shared) return;
    m_shared = true;
    m_shape = shapes().publish(std::move(m_shape));
}

// ---- descriptors ---------------------------------------------------------------------------------

const BlockInfo& Block::info() const { return m_shape->info; }
const std::vector<ParamDesc>& Block::params() const { return m_shape->params; }
const std::vector<PortDesc>& Block::ports() const { return m_shape->ports; }
bool Block::portPresent(int index) const { return m_shape->portPresent[at(index)]; }
int Block::conservingCount() const { return m_shape->conserving; }
int Block::outputVar(int portIndex) const { return m_shape->outputVar[at(portIndex)]; }
const std::vector<VarDesc>& Block::vars() const { return m_shape->vars; }
const std::vector<VarDesc>& Block::computed() const { return m_shape->computed; }
const std::vector<DiscreteDesc>& Block::discretes() const { return m_shape->discretes; }
const std::vector<RecordedVar>& Block::recorded() const { return m_shape->recorded; }
const std::vector<InitialAcross>& Block::initialAcross() const { return m_i->initialAcross; }
double Block::initialValue(int var) const { return m_i->initial[at(var)]; }
double Block::initialDiscrete(int discrete) const { return m_i->initialDiscretes[at(discrete)]; }
bool Block::grounds() const { return m_shape->grounds; }

const VarDesc& Block::describe(const RecordedVar& r) const {
    return r.computed ? m_shape->computed[at(r.index)] : m_shape->vars[at(r.index)];
}

int Block::portIndex(std::string_view name) const {
    for (std::size_t i = 0; i < m_shape->ports.size(); ++i)
        if (m_shape->ports[i].name == name && m_shape->portPresent[i]) return static_cast<int>(i);
    return -1;
}

// ---- values ----------------------------------------------------------------------------------

// Reals live in m_reals by parameter index; the others, fewer and larger, in m_values in order.
int Block::valueSlot(int index) const {
    return static_cast<int>(std::count_if(m_shape->params.begin(), m_shape->params.begin() + index,
                                          [](const ParamDesc& d) { return d.type != ParamType::Real; }));
}

const ParamValue* Block::resolvedAt(std::size_t index) const {
    if (index >= m_shape->params.size() || m_shape->params[index].type == ParamType::Real) return nullptr;
    const auto slot = at(valueSlot(static_cast<int>(index)));
    return slot < m_values.size() ? &m_values[slot] : nullptr;
}

ParamValue Block::valueOf(std::size_t index) const {
    const ParamDesc& d = m_shape->params[index];
    if (d.type != ParamType::Real) {
        const ParamValue* v = resolvedAt(index);
        return v ? *v : d.defaultValue;
    }
    if (index >= kInlineReals && index - kInlineReals >= m_moreReals.size()) return d.defaultValue;   // not resolved
    return real(Param{static_cast<int>(index)});
}

const ParamValues& Block::values() const {
    if (!m_i->values) {
        auto v = std::make_unique<ParamValues>();
        for (std::size_t i = 0; i < m_shape->params.size(); ++i) v->emplace(m_shape->params[i].key, valueOf(i));
        m_i->values = std::move(v);
    }
    return *m_i->values;
}

ParamValue Block::resolved(const ParamDesc& d) const {
    const ParamValues& given = m_i->construction->given;
    const auto it = given.find(d.key);
    return it == given.end() ? d.defaultValue : it->second;
}

// Resolves a declared parameter: the given value if it has the declared type (and is a declared
// choice), else the default and a construction error.
void Block::checkType(int index) {
    const ParamDesc& d = m_shape->params[at(index)];
    ParamValue v = resolved(d);
    const bool ok =
        (d.type == ParamType::Real && std::holds_alternative<double>(v)) ||
        (d.type == ParamType::Vector && std::holds_alternative<std::vector<double>>(v)) ||
        ((d.type == ParamType::Choice || d.type == ParamType::Text) && std::holds_alternative<std::string>(v));
    if (!ok) {
        static constexpr const char* kExpected[] = {"a number", "a vector like [0 0.01 0.02]", "a choice key", "text"};
        fail(d.key, std::string("expected ") + kExpected[static_cast<int>(d.type)] + ", got " + toString(v));
        v = d.defaultValue;
    }
    if (d.type == ParamType::Choice) {
        const auto& k = std::get<std::string>(v);
        if (std::none_of(d.choices.begin(), d.choices.end(), [&](const ChoiceOption& o) { return o.key == k; })) {
            std::string keys;
            for (const ChoiceOption& o : d.choices) keys += (keys.empty() ? "" : ", ") + o.key;
            fail(d.key, "unknown value '" + k + "', expected one of: " + keys);
            v = d.defaultValue;
        }
    }
    storeValue(index, std::move(v));
}

void Block::storeValue(int index, ParamValue v) {
    const auto i = at(index);
    const double x = std::holds_alternative<double>(v) ? std::get<double>(v) : std::numeric_limits<double>::quiet_NaN();
    if (i < kInlineReals) {
        m_reals[i] = x;
    } else {
        if (m_moreReals.size() <= i - kInlineReals)
            m_moreReals.resize(i - kInlineReals + 1, std::numeric_limits<double>::quiet_NaN());
        m_moreReals[i - kInlineReals] = x;
    }
    if (m_shape->params[i].type == ParamType::Real) return;
    const auto slot = at(valueSlot(index));
    if (m_values.size() <= slot) m_values.resize(slot + 1);
    m_values[slot] = std::move(v);
}

// isVisible() on this block's resolved values, without building the map
bool Block::visible(const std::optional<Visibility>& rule) const {
    return isVisibleBy(rule, m_shape->params, [&](std::size_t i) { return resolvedAt(i); });
}

// ---- validation ------------------------------------------------------------------------------

void Block::fail(std::string param, std::string message) const {
    m_i->buildErrors.push_back(paramError(param, std::move(message)));
}

Diagnostic Block::paramError(const std::string& key, std::string message) const {
    Diagnostic d;
    d.severity = Severity::Error;
    d.param = key;
    d.message = std::move(message);
    return d;
}

Diagnostic Block::paramWarning(const std::string& key, std::string message) const {
    Diagnostic d = paramError(key, std::move(message));
    d.severity = Severity::Warning;
    return d;
}

Diagnostics Block::validate() const {
    Diagnostics out = m_i->buildErrors;
    if (m_i->construction)   // not published yet: publishShape() adds these to buildErrors
        for (const auto& [key, value] : m_i->construction->given) {
            const bool known = std::any_of(m_shape->params.begin(), m_shape->params.end(),
                                           [&](const ParamDesc& d) { return d.key == key; });
            if (!known) out.push_back(paramError(key, "unknown parameter for block type " + m_shape->info.typeId));
        }
    for (std::size_t i = 0; i < m_shape->params.size(); ++i) {
        const ParamDesc& d = m_shape->params[i];
        if (!visible(d.visibleWhen)) continue;   // hidden: ignored
        if (std::string e = d.valueError(valueOf(i)); !e.empty()) out.push_back(paramError(d.key, e));
    }
    if (!hasErrors(out)) validateMore(out);
    return out;
}

}   // namespace endstop::core
