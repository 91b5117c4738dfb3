// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model.hpp"

#include "core/model/errors.hpp"

#include <algorithm>

namespace endstop::core {

namespace {
template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;
}  // namespace

std::optional<PortRef> PortRef::parse(std::string_view text) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return std::nullopt;
    if (text.find('.', dot + 1) != std::string_view::npos) return std::nullopt;
    return PortRef{std::string(text.substr(0, dot)), std::string(text.substr(dot + 1))};
}

bool Edit::cosmetic() const {
    return std::visit(Overload{
                          [](const MoveBlock&) { return true; },
                          [](const SetBlockUi&) { return true; },
                          [](const SetPlots&) { return true; },
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

const BlockSpec* Model::find(std::string_view name) const {
    const int i = indexOf(name);
    return i < 0 ? nullptr : &m_blocks[static_cast<std::size_t>(i)];
}

int Model::indexOf(std::string_view name) const {
    for (std::size_t i = 0; i < m_blocks.size(); ++i)
        if (m_blocks[i].name == name) return static_cast<int>(i);
    return -1;
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

Edit Model::applyOne(const Edit& edit) {
    return std::visit(
        Overload{
            [&](const AddBlock& e) -> Edit {
                if (!validName(e.block.name))
                    throw ModelError("invalid block name '" + e.block.name + "': use letters, digits and _, not starting with a digit");
                if (find(e.block.name)) throw ModelError("a block named '" + e.block.name + "' already exists");
                const auto at = e.index < 0 || e.index > static_cast<int>(m_blocks.size())
                                    ? m_blocks.end() : m_blocks.begin() + e.index;
                m_blocks.insert(at, e.block);
                return RemoveBlock{e.block.name};
            },
            [&](const RemoveBlock& e) -> Edit {
                const int i = indexOf(e.name);
                if (i < 0) throw ModelError("no block named '" + e.name + "'");
                EditBatch inverse{{AddBlock{m_blocks[static_cast<std::size_t>(i)], i}}, "remove"};
                // ascending positions: re-inserting them in this order restores the exact list
                for (std::size_t k = 0; k < m_connections.size(); ++k) {
                    const Connection& c = m_connections[k];
                    if (c.a.block == e.name || c.b.block == e.name) inverse.edits.emplace_back(Connect{c, static_cast<int>(k)});
                }
                std::erase_if(m_connections, [&](const Connection& c) { return c.a.block == e.name || c.b.block == e.name; });
                m_blocks.erase(m_blocks.begin() + i);
                return inverse;
            },
            [&](const Connect& e) -> Edit {
                for (const PortRef& p : {e.connection.a, e.connection.b})
                    if (!find(p.block)) throw ModelError("connection " + p.toString() + ": no block named '" + p.block + "'");
                if (e.connection.a == e.connection.b) throw ModelError("cannot connect " + e.connection.a.toString() + " to itself");
                if (std::find(m_connections.begin(), m_connections.end(), e.connection) != m_connections.end())
                    throw ModelError(e.connection.a.toString() + " and " + e.connection.b.toString() + " are already connected");
                const auto at = e.index < 0 || e.index > static_cast<int>(m_connections.size())
                                    ? m_connections.end() : m_connections.begin() + e.index;
                m_connections.insert(at, e.connection);
                return Disconnect{e.connection};
            },
            [&](const Disconnect& e) -> Edit {
                const auto it = std::find(m_connections.begin(), m_connections.end(), e.connection);
                if (it == m_connections.end())
                    throw ModelError(e.connection.a.toString() + " and " + e.connection.b.toString() + " are not connected");
                const Connection stored = *it;   // as written (a and b may be given swapped)
                const int index = static_cast<int>(it - m_connections.begin());
                m_connections.erase(it);
                return Connect{stored, index};
            },
            [&](const SetParameter& e) -> Edit {
                BlockSpec& b = get(e.block);
                SetParameter inverse{e.block, e.key, std::nullopt};
                if (auto it = b.params.find(e.key); it != b.params.end()) inverse.value = it->second;
                if (e.value) b.params[e.key] = *e.value;
                else b.params.erase(e.key);
                return inverse;
            },
            [&](const RenameBlock& e) -> Edit {
                if (e.from == e.to) return RenameBlock{e.to, e.from};
                if (!validName(e.to))
                    throw ModelError("invalid block name '" + e.to + "': use letters, digits and _, not starting with a digit");
                if (find(e.to)) throw ModelError("a block named '" + e.to + "' already exists");
                get(e.from).name = e.to;
                for (Connection& c : m_connections)
                    for (PortRef* p : {&c.a, &c.b})
                        if (p->block == e.from) p->block = e.to;
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
        },
        edit.value);
}

}  // namespace endstop::core
