// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/blockapi/block.hpp"

#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <mutex>
#include <new>
#include <unordered_map>

namespace endstop::core {

namespace {
Unit acrossUnit(Domain d) { return Unit::parse(d == Domain::Rotational ? "rad/s" : "m/s"); }
std::size_t at(int i) { return static_cast<std::size_t>(i); }
// A size-class pool for block objects: chunks of 256 KiB cut into 64-byte multiples, freed
// objects kept on per-class lists. Blocks are created at build time on any thread, so one mutex.
class BlockPool {
public:
    void* allocate(std::size_t size) {
        const std::size_t cls = (size + kGrain - 1) / kGrain;
        std::lock_guard lock(m_mutex);
        if (cls >= m_free.size()) m_free.resize(cls + 1);
        if (void* p = m_free[cls]) {
            m_free[cls] = *static_cast<void**>(p);
            return p;
        }
        const std::size_t bytes = cls * kGrain;
        if (bytes > kChunk) return ::operator new(bytes);
        if (m_left < bytes) {
            m_next = static_cast<char*>(::operator new(kChunk));   // chunks live as long as the program
            m_left = kChunk;
        }
        void* p = m_next;
        m_next += bytes;
        m_left -= bytes;
        return p;
    }
    void release(void* p, std::size_t size) {
        const std::size_t cls = (size + kGrain - 1) / kGrain;
        if (cls * kGrain > kChunk) {
            ::operator delete(p);
            return;
        }
        std::lock_guard lock(m_mutex);
        *static_cast<void**>(p) = m_free[cls];
        m_free[cls] = p;
    }

private:
    static constexpr std::size_t kGrain = 64, kChunk = 256 * 1024;
    std::mutex m_mutex;
    std::vector<void*> m_free;
    char* m_next = nullptr;
    std::size_t m_left = 0;
};

BlockPool& pool() {
    static BlockPool* p = new BlockPool;   // never destroyed: blocks may outlive static destruction order
    return *p;
}

}  // namespace

void* Block::operator new(std::size_t size) { return pool().allocate(size); }
void Block::operator delete(void* p, std::size_t size) noexcept { pool().release(p, size); }

namespace {

// Shapes by key, shared by every block of that key. Bounded: a tuning session creates a key per
// value tried, so the cache is emptied when it grows large (blocks keep their own reference).
class ShapeCache {
public:
    template <class Shape>
    std::shared_ptr<Shape> find(const std::string& key) {
        std::lock_guard lock(m_mutex);
        const auto it = m_shapes.find(key);
        return it == m_shapes.end() ? nullptr : std::static_pointer_cast<Shape>(it->second);
    }
    void insert(const std::string& key, std::shared_ptr<void> shape) {
        std::lock_guard lock(m_mutex);
        if (m_shapes.size() >= kMax) m_shapes.clear();
        m_shapes.emplace(key, std::move(shape));
    }

private:
    static constexpr std::size_t kMax = 4096;
    std::mutex m_mutex;
    std::unordered_map<std::string, std::shared_ptr<void>> m_shapes;
};

ShapeCache& shapes() {
    static ShapeCache* c = new ShapeCache;
    return *c;
}

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

}  // namespace

Block::Block(BlockInfo info, ParamValues given) : m_i(std::make_unique<Instance>()) {
    std::string key = info.typeId;
    for (const auto& [k, v] : given) key += ';' + k + '=' + toString(v);
    m_i->given = std::move(given);
    m_shape = shapes().find<Shape>(key);
    m_shared = m_shape != nullptr;
    if (!m_shared) {
        m_shape = std::make_shared<Shape>();
        m_shape->key = std::move(key);
        m_shape->info = std::move(info);
    }
}

void Block::publishShape() {
    if (m_shared) return;
    m_shared = true;
    shapes().insert(m_shape->key, m_shape);
}

ParamDesc& Block::scratchParam() {
    static thread_local ParamDesc scratch;
    return scratch;
}

PortDesc& Block::scratchPort() {
    static thread_local PortDesc scratch;
    return scratch;
}

int Block::portIndex(std::string_view name) const {
    for (std::size_t i = 0; i < m_shape->ports.size(); ++i)
        if (m_shape->ports[i].name == name && m_i->portPresent[i]) return static_cast<int>(i);
    return -1;
}

const ParamValues& Block::values() const {
    if (!m_i->values) {
        ParamValues v;
        for (std::size_t i = 0; i < m_shape->params.size() && i < m_i->byIndex.size(); ++i)
            v.emplace(m_shape->params[i].key, m_i->byIndex[i]);
        m_i->values = std::move(v);
    }
    return *m_i->values;
}

int Block::declareParam(std::string_view key, std::string_view label, ParamType type, std::string_view unit, ParamValue def) {
    const int index = m_i->params++;
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
        for (const ChoiceView& o : options) m_shape->params.back().choices.push_back({std::string(o.key), std::string(o.label)});
    return {*this, index};
}

Block::Builder<VecParam> Block::vector(std::string_view key, std::string_view label, std::string_view unit, std::vector<double> def) {
    return {*this, declareParam(key, label, ParamType::Vector, unit, std::move(def))};
}

Block::Builder<TextParam> Block::text(std::string_view key, std::string_view label, std::string_view def) {
    return {*this, declareParam(key, label, ParamType::Text, {}, std::string(def))};
}

int Block::declarePort(std::string_view name, std::string_view label, PortKind kind, Domain d, std::string_view unit) {
    const int index = m_i->ports++;
    m_i->portPresent.push_back(true);
    if (building()) {
        PortDesc p{std::string(name), std::string(label), kind, d,
                   kind == PortKind::Conserving ? acrossUnit(d) : unitOf(unit), false, {}};
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
    if (building()) m_shape->outputVar[static_cast<std::size_t>(port)] = var;
    return {*this, port};
}

int Block::declareVar(std::string_view name, std::string_view label, std::string_view unit, VarKind kind) {
    const int index = m_i->vars++;
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
    const int index = m_i->computed++;
    if (building()) {
        m_shape->computed.push_back({std::string(name), std::string(label), unitOf(unit), VarKind::Computed, true});
        m_shape->recorded.push_back({true, index});
    }
    return Computed{index};
}

Discrete Block::discrete(std::string_view name, double initial, int modes) {
    const int index = m_i->discretes++;
    if (building()) m_shape->discretes.push_back({std::string(name), initial, modes});
    return Discrete{index};
}

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

ParamValue Block::resolved(const ParamDesc& d) const {
    const auto it = m_i->given.find(d.key);
    return it == m_i->given.end() ? d.defaultValue : it->second;
}

void Block::checkType(int index) {
    const ParamDesc& d = m_shape->params[static_cast<std::size_t>(index)];
    ParamValue v = resolved(d);
    const bool ok = (d.type == ParamType::Real && std::holds_alternative<double>(v)) ||
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
    const auto i = static_cast<std::size_t>(index);
    if (m_i->byIndex.size() <= i) m_i->byIndex.resize(i + 1);
    const double x = std::holds_alternative<double>(v) ? std::get<double>(v) : std::numeric_limits<double>::quiet_NaN();
    if (i < kInlineReals) {
        m_reals[i] = x;
    } else {
        if (m_moreReals.size() <= i - kInlineReals) m_moreReals.resize(i - kInlineReals + 1, std::numeric_limits<double>::quiet_NaN());
        m_moreReals[i - kInlineReals] = x;
    }
    m_i->byIndex[i] = std::move(v);
}

// isVisible() on this block's resolved values, without building the map
bool Block::visible(const std::optional<Visibility>& rule) const {
    return isVisibleBy(rule, m_shape->params, [&](std::size_t i) { return i < m_i->byIndex.size() ? &m_i->byIndex[i] : nullptr; });
}

Block::ParamBuilder& Block::ParamBuilder::visibleWhen(Choice c, std::initializer_list<const char*> values) {
    if (!m_b.building()) return *this;
    Visibility v{m_b.m_shape->params[at(c.index)].key, {}};
    for (const char* s : values) v.values.emplace_back(s);
    d().visibleWhen = std::move(v);
    return *this;
}

Block::ParamBuilder::operator Param() {
    m_b.checkType(m_i);
    return Param{m_i};
}

Block::PortBuilder& Block::PortBuilder::visibleWhen(Choice c, std::initializer_list<const char*> values) {
    if (!m_b.building()) return *this;
    Visibility v{m_b.m_shape->params[at(c.index)].key, {}};
    for (const char* s : values) v.values.emplace_back(s);
    p().visibleWhen = std::move(v);
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
    m_b.m_i->portPresent[at(m_i)] = present;
    int conserving = -1;
    if (d.kind == PortKind::Conserving) {
        conserving = m_b.m_i->conserving++;
        if (m_b.building()) m_b.m_shape->conserving = m_b.m_i->conserving;
    }
    return Port{m_i, conserving, present};
}

Diagnostics Block::validate() const {
    Diagnostics out = m_i->buildErrors;
    for (const auto& [key, value] : m_i->given) {
        const bool known = std::any_of(m_shape->params.begin(), m_shape->params.end(), [&](const ParamDesc& d) { return d.key == key; });
        if (!known) out.push_back(paramError(key, "unknown parameter for block type " + m_shape->info.typeId));
    }
    for (std::size_t i = 0; i < m_shape->params.size() && i < m_i->byIndex.size(); ++i) {
        const ParamDesc& d = m_shape->params[i];
        if (!visible(d.visibleWhen)) continue;   // hidden: ignored
        if (std::string e = d.valueError(m_i->byIndex[i]); !e.empty()) out.push_back(paramError(d.key, e));
    }
    if (!hasErrors(out)) validateMore(out);
    return out;
}

}  // namespace endstop::core
