// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/blockapi/block.hpp"

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <new>

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

Block::Block(BlockInfo info, ParamValues given) : m_d(std::make_unique<Descriptor>()) {
    m_d->info = std::move(info);
    m_d->given = std::move(given);
}

int Block::portIndex(std::string_view name) const {
    for (std::size_t i = 0; i < m_d->ports.size(); ++i)
        if (m_d->ports[i].name == name && m_d->portPresent[i]) return static_cast<int>(i);
    return -1;
}

Block::ParamBuilder Block::real(std::string key, std::string label, std::string unit, double def) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.type = ParamType::Real;
    d.unit = unit.empty() ? Unit{} : Unit::parse(unit);
    d.defaultValue = def;
    m_d->params.push_back(std::move(d));
    return {*this, static_cast<int>(m_d->params.size()) - 1};
}

Block::Builder<Choice> Block::choice(std::string key, std::string label, std::string def,
                                     std::vector<ChoiceOption> options) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.type = ParamType::Choice;
    d.defaultValue = std::move(def);
    d.choices = std::move(options);
    d.tunable = false;
    m_d->params.push_back(std::move(d));
    return {*this, static_cast<int>(m_d->params.size()) - 1};
}

Block::Builder<VecParam> Block::vector(std::string key, std::string label, std::string unit, std::vector<double> def) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.type = ParamType::Vector;
    d.unit = unit.empty() ? Unit{} : Unit::parse(unit);
    d.defaultValue = std::move(def);
    d.tunable = false;
    m_d->params.push_back(std::move(d));
    return {*this, static_cast<int>(m_d->params.size()) - 1};
}

Block::Builder<TextParam> Block::text(std::string key, std::string label, std::string def) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.type = ParamType::Text;
    d.defaultValue = std::move(def);
    d.tunable = false;
    m_d->params.push_back(std::move(d));
    return {*this, static_cast<int>(m_d->params.size()) - 1};
}

Block::PortBuilder Block::conserving(std::string name, Domain d, std::string label) {
    PortDesc p{std::move(name), std::move(label), PortKind::Conserving, d, acrossUnit(d), false, {}};
    m_d->ports.push_back(std::move(p));
    m_d->portPresent.push_back(true);
    m_d->outputVar.push_back(-1);
    return {*this, static_cast<int>(m_d->ports.size()) - 1};
}

Block::PortBuilder Block::input(std::string name, std::string label, std::string unit) {
    PortDesc p{std::move(name), std::move(label), PortKind::Input, Domain::Signal,
               unit.empty() ? Unit{} : Unit::parse(unit), false, {}};
    m_d->ports.push_back(std::move(p));
    m_d->portPresent.push_back(true);
    m_d->outputVar.push_back(-1);
    return {*this, static_cast<int>(m_d->ports.size()) - 1};
}

Block::PortBuilder Block::output(std::string name, std::string label, std::string unit) {
    PortDesc p{name, label, PortKind::Output, Domain::Signal, unit.empty() ? Unit{} : Unit::parse(unit), false, {}};
    m_d->vars.push_back({std::move(name), std::move(label), p.unit, VarKind::Algebraic, false});
    m_d->initial.push_back(0.0);
    m_d->ports.push_back(std::move(p));
    m_d->portPresent.push_back(true);
    m_d->outputVar.push_back(static_cast<int>(m_d->vars.size()) - 1);
    return {*this, static_cast<int>(m_d->ports.size()) - 1};
}

Block::VarBuilder Block::state(std::string name, std::string label, std::string unit) {
    m_d->vars.push_back({std::move(name), std::move(label), unit.empty() ? Unit{} : Unit::parse(unit), VarKind::State, false});
    m_d->initial.push_back(0.0);
    return {*this, static_cast<int>(m_d->vars.size()) - 1};
}

Block::VarBuilder Block::algebraic(std::string name, std::string label, std::string unit) {
    m_d->vars.push_back({std::move(name), std::move(label), unit.empty() ? Unit{} : Unit::parse(unit), VarKind::Algebraic, false});
    m_d->initial.push_back(0.0);
    return {*this, static_cast<int>(m_d->vars.size()) - 1};
}

Computed Block::computed(std::string name, std::string label, std::string unit) {
    m_d->computed.push_back({std::move(name), std::move(label), unit.empty() ? Unit{} : Unit::parse(unit), VarKind::Computed, true});
    m_d->recorded.push_back({true, static_cast<int>(m_d->computed.size()) - 1});
    return Computed{static_cast<int>(m_d->computed.size()) - 1};
}

Discrete Block::discrete(std::string name, double initial, int modes) {
    m_d->discretes.push_back({std::move(name), initial, modes});
    return Discrete{static_cast<int>(m_d->discretes.size()) - 1};
}

void Block::fail(std::string param, std::string message) const {
    m_d->buildErrors.push_back(paramError(param, std::move(message)));
}

Diagnostic Block::paramError(const std::string& key, std::string message) const {
    Diagnostic d;
    d.severity = Severity::Error;
    d.param = key;
    d.message = std::move(message);
    return d;
}

ParamValue Block::resolved(const ParamDesc& d) const {
    const auto it = m_d->given.find(d.key);
    return it == m_d->given.end() ? d.defaultValue : it->second;
}

void Block::checkType(const ParamDesc& d) {
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
        bool known = false;
        std::string keys;
        for (const ChoiceOption& o : d.choices) {
            known = known || o.key == k;
            keys += (keys.empty() ? "" : ", ") + o.key;
        }
        if (!known) {
            fail(d.key, "unknown value '" + k + "', expected one of: " + keys);
            v = d.defaultValue;
        }
    }
    const auto index = static_cast<std::size_t>(&d - m_d->params.data());
    if (m_d->byIndex.size() <= index) m_d->byIndex.resize(index + 1);
    const double x = std::holds_alternative<double>(v) ? std::get<double>(v) : std::numeric_limits<double>::quiet_NaN();
    if (index < kInlineReals) {
        m_reals[index] = x;
    } else {
        if (m_moreReals.size() <= index - kInlineReals) m_moreReals.resize(index - kInlineReals + 1, std::numeric_limits<double>::quiet_NaN());
        m_moreReals[index - kInlineReals] = x;
    }
    m_d->byIndex[index] = v;
    m_d->values[d.key] = std::move(v);
}

Block::ParamBuilder& Block::ParamBuilder::visibleWhen(Choice c, std::initializer_list<const char*> values) {
    Visibility v{m_b.m_d->params[at(c.index)].key, {}};
    for (const char* s : values) v.values.emplace_back(s);
    d().visibleWhen = std::move(v);
    return *this;
}

Block::ParamBuilder::operator Param() {
    m_b.checkType(d());
    return Param{m_i};
}

Block::PortBuilder& Block::PortBuilder::visibleWhen(Choice c, std::initializer_list<const char*> values) {
    Visibility v{m_b.m_d->params[at(c.index)].key, {}};
    for (const char* s : values) v.values.emplace_back(s);
    p().visibleWhen = std::move(v);
    return *this;
}

Block::PortBuilder& Block::PortBuilder::recorded() {
    const int v = m_b.m_d->outputVar[at(m_i)];
    if (v >= 0 && !m_b.m_d->vars[at(v)].recorded) {
        m_b.m_d->vars[at(v)].recorded = true;
        m_b.m_d->recorded.push_back({false, v});
    }
    return *this;
}

Block::PortBuilder::operator Port() const {
    const PortDesc& d = m_b.m_d->ports[at(m_i)];
    const bool present = isVisible(d.visibleWhen, m_b.m_d->values, m_b.m_d->params);
    m_b.m_d->portPresent[at(m_i)] = present;
    int conserving = -1;
    if (d.kind == PortKind::Conserving) conserving = m_b.m_d->conserving++;
    return Port{m_i, conserving, present};
}

Diagnostics Block::validate() const {
    Diagnostics out = m_d->buildErrors;
    for (const auto& [key, value] : m_d->given) {
        bool known = false;
        for (const ParamDesc& d : m_d->params) known = known || d.key == key;
        if (!known) out.push_back(paramError(key, "unknown parameter for block type " + m_d->info.typeId));
    }
    for (const ParamDesc& d : m_d->params) {
        if (!isVisible(d.visibleWhen, m_d->values, m_d->params)) continue;   // hidden: ignored
        const ParamValue& v = m_d->values.at(d.key);
        if (const double* x = std::get_if<double>(&v)) {
            if (!std::isfinite(*x)) out.push_back(paramError(d.key, "must be a finite number"));
            else if (std::string e = d.rangeError(*x); !e.empty()) out.push_back(paramError(d.key, e));
        } else if (const auto* xs = std::get_if<std::vector<double>>(&v)) {
            for (double element : *xs) {
                if (!std::isfinite(element)) { out.push_back(paramError(d.key, "all elements must be finite")); break; }
                if (std::string e = d.rangeError(element); !e.empty()) { out.push_back(paramError(d.key, "every element " + e)); break; }
            }
        }
    }
    if (!hasErrors(out)) validateMore(out);
    return out;
}

}  // namespace endstop::core
