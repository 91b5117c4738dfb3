// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <utility>

namespace endstop::core::model {

namespace {
template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;
}   // namespace

std::optional<PortRef> PortRef::parse(std::string_view text) {
    const auto dot = text.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return std::nullopt;
    if (!Model::validPath(text.substr(0, dot)) || !Model::validName(text.substr(dot + 1))) return std::nullopt;
    return PortRef{std::string(text.substr(0, dot)), std::string(text.substr(dot + 1))};
}

std::string_view subsystemOf(std::string_view type) {
    return type.starts_with(kSubsystemPrefix) ? type.substr(kSubsystemPrefix.size()) : std::string_view{};
}

bool isPortType(std::string_view type) { return type.starts_with(kPortPrefix); }

std::vector<const BlockSpec*> SubsystemDef::ports() const {
    std::vector<const BlockSpec*> out;
    for (const BlockSpec& b : body.blocks())
        if (isPortType(b.type)) out.push_back(&b);
    return out;
}

AddSubsystem addSubsystem(SubsystemDef def, int index) {
    return AddSubsystem{std::make_shared<const SubsystemDef>(std::move(def)), index};
}

bool Edit::cosmetic() const {
    return std::visit(
        Overload{
            [](const MoveBlock&) { return true; },
            [](const SetBlockUi&) { return true; },
            [](const SetPlots&) { return true; },
            [](const InSubsystem& e) {
                return std::all_of(e.edit.begin(), e.edit.end(), [](const Edit& x) { return x.cosmetic(); });
            },
            [](const EditBatch& b) {
                return std::all_of(b.edits.begin(), b.edits.end(), [](const Edit& e) { return e.cosmetic(); });
            },
            [](const auto&) { return false; },
        },
        value);
}

bool Model::validName(std::string_view name) {
    if (name.empty()) return false;
    auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    if (!alpha(name.front())) return false;
    return std::all_of(name.begin(), name.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

bool Model::validPath(std::string_view path) {
    std::size_t start = 0;
    while (true) {
        const auto dot = path.find('.', start);
        if (!validName(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start)))
            return false;
        if (dot == std::string_view::npos) return true;
        start = dot + 1;
    }
}

const ParameterDef* Model::findParameter(std::string_view name) const {
    for (const ParameterDef& p : m_parameters)
        if (p.name == name) return &p;
    return nullptr;
}

const SubsystemDef* Model::findSubsystem(std::string_view name) const {
    for (const SubsystemDef& d : m_subsystems)
        if (d.name == name) return &d;
    return nullptr;
}

bool Model::hierarchical() const {
    if (!m_parameters.empty() || !m_subsystems.empty()) return true;
    for (const BlockSpec& b : m_blocks) {
        if (b.type.starts_with(kSubsystemPrefix)) return true;
        // without named parameters an expression has an operator, a space or a digit: a choice
        // key never does (a text parameter may, and is then merely copied by flatten())
        for (const auto& [key, value] : b.params)
            if (const auto* text = std::get_if<std::string>(&value); text && !validName(*text)) return true;
    }
    return false;
}

const BlockSpec* Model::find(std::string_view name) const {
    const int i = indexOf(name);
    return i < 0 ? nullptr : &m_blocks[static_cast<std::size_t>(i)];
}

int Model::indexOf(std::string_view name) const {
    if (m_indexStale) {
        m_index.clear();
        for (std::size_t i = 0; i < m_blocks.size(); ++i) m_index.emplace(m_blocks[i].name, static_cast<int>(i));
        m_indexStale = false;
    }
    const auto it = m_index.find(name);
    return it == m_index.end() ? -1 : it->second;
}

void Model::reserve(std::size_t blocks, std::size_t connections) {
    m_blocks.reserve(blocks);
    m_index.reserve(blocks);
    m_connections.reserve(connections);
    m_connectionKeys.reserve(connections);
}

std::string Model::key(const Connection& c) {
    std::string a = c.a.toString(), b = c.b.toString();
    if (b < a) a.swap(b);
    return a.append(1, '\n').append(b);
}

void Model::reindexConnections() {
    m_connectionKeys.clear();
    for (const Connection& c : m_connections) m_connectionKeys.insert(key(c));
}

std::vector<Connection> Model::connectionsOf(std::string_view block) const {
    std::vector<Connection> out;
    for (const Connection& c : m_connections)
        if (c.a.block == block || c.b.block == block) out.push_back(c);
    return out;
}

std::string Model::uniqueName(std::string_view base) const {
    std::string stem(base);
    while (!stem.empty() && stem.back() >= '0' && stem.back() <= '9') stem.pop_back();
    if (!validName(stem)) stem = "block";
    if (!find(stem) && stem == base) return stem;
    for (int i = 1;; ++i) {
        std::string candidate = stem + std::to_string(i);
        if (!find(candidate)) return candidate;
    }
}

Edit Model::setModelParameter(const SetModelParameter& e) {
    auto it =
        std::find_if(m_parameters.begin(), m_parameters.end(), [&](const ParameterDef& p) { return p.name == e.name; });
    const int at = static_cast<int>(it - m_parameters.begin());
    if (it == m_parameters.end()) {
        if (!e.value) throw ModelError("no parameter named '" + e.name + "'");
        if (!validName(e.name))
            throw ModelError("invalid parameter name '" + e.name +
                             "': use letters, digits and _, not starting with a digit");
        const bool append = e.index < 0 || e.index >= static_cast<int>(m_parameters.size());
        m_parameters.insert(append ? m_parameters.end() : m_parameters.begin() + e.index,
                            ParameterDef{e.name, *e.value});
        return SetModelParameter{e.name, std::nullopt};
    }
    SetModelParameter inverse{e.name, it->value, at};
    if (e.value)
        it->value = *e.value;
    else
        m_parameters.erase(it);
    return inverse;
}

BlockSpec& Model::get(std::string_view name) {
    const int i = indexOf(name);
    if (i < 0) throw ModelError("no block named '" + std::string(name) + "'");
    return m_blocks[static_cast<std::size_t>(i)];
}

Edit Model::apply(const Edit& edit) {
    if (const auto* batch = std::get_if<EditBatch>(&edit.value)) {
        EditBatch inverse{{}, batch->label};
        try {
            for (const Edit& e : batch->edits) inverse.edits.insert(inverse.edits.begin(), apply(e));
        } catch (...) {
            for (const Edit& undo : inverse.edits) apply(undo);   // all or nothing
            throw;
        }
        return inverse;
    }
    return applyOne(edit);
}

Edit Model::apply(Edit&& edit) {
    if (auto* add = std::get_if<AddBlock>(&edit.value)) return addBlock(std::move(add->block), add->index);
    return apply(std::as_const(edit));
}

Edit Model::addBlock(BlockSpec&& block, int index) {
    if (!validPath(block.name))
        throw ModelError("invalid block name '" + block.name +
                         "': use letters, digits and _, not starting with a digit");
    if (find(block.name)) throw ModelError("a block named '" + block.name + "' already exists");
    RemoveBlock inverse{block.name};
    if (index < 0 || index >= static_cast<int>(m_blocks.size())) {   // appended
        if (!m_indexStale) m_index.emplace(block.name, static_cast<int>(m_blocks.size()));
        m_blocks.push_back(std::move(block));
    } else {
        m_blocks.insert(m_blocks.begin() + index, std::move(block));
        m_indexStale = true;
    }
    return inverse;
}

Edit Model::applyOne(const Edit& edit) {
    return std::visit(
        Overload{
            [&](const AddBlock& e) -> Edit { return addBlock(BlockSpec(e.block), e.index); },
            [&](const RemoveBlock& e) -> Edit {
                const int i = indexOf(e.name);
                if (i < 0) throw ModelError("no block named '" + e.name + "'");
                EditBatch inverse{{AddBlock{m_blocks[static_cast<std::size_t>(i)], i}}, "remove"};
                // in ascending positions, so that re-inserting them one by one restores the order
                for (std::size_t k = 0; k < m_connections.size(); ++k) {
                    const Connection& c = m_connections[k];
                    if (c.a.block == e.name || c.b.block == e.name)
                        inverse.edits.emplace_back(Connect{c, static_cast<int>(k)});
                }
                std::erase_if(m_connections, [&](const Connection& c) {
                    const bool mine = c.a.block == e.name || c.b.block == e.name;
                    if (mine) m_connectionKeys.erase(key(c));
                    return mine;
                });
                m_blocks.erase(m_blocks.begin() + i);
                m_indexStale = true;
                return inverse;
            },
            [&](const Connect& e) -> Edit {
                for (const PortRef* p : {&e.connection.a, &e.connection.b})
                    if (!find(p->block))
                        throw ModelError("connection " + p->toString() + ": no block named '" + p->block + "'");
                if (e.connection.a == e.connection.b)
                    throw ModelError("cannot connect " + e.connection.a.toString() + " to itself");
                if (!m_connectionKeys.insert(key(e.connection)).second)
                    throw ModelError(e.connection.a.toString() + " and " + e.connection.b.toString() +
                                     " are already connected");
                const auto at = e.index < 0 || e.index > static_cast<int>(m_connections.size())
                                    ? m_connections.end()
                                    : m_connections.begin() + e.index;
                m_connections.insert(at, e.connection);
                return Disconnect{e.connection};
            },
            [&](const Disconnect& e) -> Edit {
                const auto it = std::find(m_connections.begin(), m_connections.end(), e.connection);
                if (it == m_connections.end())
                    throw ModelError(e.connection.a.toString() + " and " + e.connection.b.toString() +
                                     " are not connected");
                const Connect inverse{
                    *it, static_cast<int>(it - m_connections.begin())};   // as stored: orientation and place
                m_connections.erase(it);
                m_connectionKeys.erase(key(e.connection));
                return inverse;
            },
            [&](const SetParameter& e) -> Edit {
                BlockSpec& b = get(e.block);
                SetParameter inverse{e.block, e.key, std::nullopt};
                if (auto it = b.params.find(e.key); it != b.params.end()) inverse.value = it->second;
                if (e.value)
                    b.params[e.key] = *e.value;
                else
                    b.params.erase(e.key);
                return inverse;
            },
            [&](const RenameBlock& e) -> Edit {
                if (e.from == e.to) return RenameBlock{e.to, e.from};
                if (!validName(e.to))
                    throw ModelError("invalid block name '" + e.to +
                                     "': use letters, digits and _, not starting with a digit");
                if (find(e.to)) throw ModelError("a block named '" + e.to + "' already exists");
                get(e.from).name = e.to;
                m_indexStale = true;
                for (Connection& c : m_connections)
                    for (PortRef* p : {&c.a, &c.b})
                        if (p->block == e.from) p->block = e.to;
                reindexConnections();
                for (PlotSpec& plot : m_plots)
                    for (std::string& s : plot.signals)
                        if (s.starts_with(e.from + ".")) s = e.to + s.substr(e.from.size());
                return RenameBlock{e.to, e.from};
            },
            [&](const MoveBlock& e) -> Edit {
                BlockSpec& b = get(e.name);
                MoveBlock inverse{e.name, b.ui.x, b.ui.y};
                b.ui.x = e.x;
                b.ui.y = e.y;
                return inverse;
            },
            [&](const SetBlockUi& e) -> Edit {
                BlockSpec& b = get(e.name);
                SetBlockUi inverse{e.name, b.ui};
                b.ui = e.ui;
                return inverse;
            },
            [&](const SetSimulation& e) -> Edit {
                SetSimulation inverse{m_simulation};
                m_simulation = e.settings;
                return inverse;
            },
            [&](const SetPlots& e) -> Edit {
                SetPlots inverse{m_plots};
                m_plots = e.plots;
                return inverse;
            },
            [&](const EditBatch& e) -> Edit { return apply(e); },
            [&](const SetModelParameter& e) -> Edit { return setModelParameter(e); },
            [&](const AddSubsystem& e) -> Edit {
                if (!e.def || !validName(e.def->name))
                    throw ModelError("invalid subsystem name '" + (e.def ? e.def->name : std::string()) + "'");
                if (findSubsystem(e.def->name))
                    throw ModelError("a subsystem named '" + e.def->name + "' already exists");
                const bool append = e.index < 0 || e.index >= static_cast<int>(m_subsystems.size());
                m_subsystems.insert(append ? m_subsystems.end() : m_subsystems.begin() + e.index, *e.def);
                return RemoveSubsystem{e.def->name};
            },
            [&](const RemoveSubsystem& e) -> Edit {
                const auto it = std::find_if(m_subsystems.begin(), m_subsystems.end(),
                                             [&](const SubsystemDef& d) { return d.name == e.name; });
                if (it == m_subsystems.end()) throw ModelError("no subsystem named '" + e.name + "'");
                const std::string type = std::string(kSubsystemPrefix) + e.name;
                for (const BlockSpec& b : m_blocks)
                    if (b.type == type)
                        throw ModelError("subsystem '" + e.name + "' is used by block '" + b.name + "'");
                for (const SubsystemDef& d : m_subsystems)
                    for (const BlockSpec& b : d.body.blocks())
                        if (b.type == type)
                            throw ModelError("subsystem '" + e.name + "' is used by '" + d.name + "." + b.name + "'");
                const int index = static_cast<int>(it - m_subsystems.begin());
                AddSubsystem inverse = addSubsystem(std::move(*it), index);
                m_subsystems.erase(it);
                return inverse;
            },
            [&](const InSubsystem& e) -> Edit {
                auto it = std::find_if(m_subsystems.begin(), m_subsystems.end(),
                                       [&](const SubsystemDef& d) { return d.name == e.name; });
                if (it == m_subsystems.end()) throw ModelError("no subsystem named '" + e.name + "'");
                InSubsystem inverse{e.name, {}};
                for (const Edit& inner : e.edit) inverse.edit.insert(inverse.edit.begin(), it->body.apply(inner));
                return inverse;
            },
            [&](const SetBlockType& e) -> Edit {
                BlockSpec& b = get(e.name);
                SetBlockType inverse{e.name, b.type};
                b.type = e.type;
                return inverse;
            },
        },
        edit.value);
}

}   // namespace endstop::core::model
