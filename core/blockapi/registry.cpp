// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/blockapi/registry.hpp"

#include "core/errors.hpp"

namespace endstop::core {

void Registry::addType(BlockType type) {
    if (find(type.info.typeId)) throw std::logic_error("block type registered twice: " + type.info.typeId);
    m_types.push_back(std::move(type));
}

const BlockType* Registry::find(std::string_view typeId) const {
    for (const BlockType& t : m_types)
        if (t.info.typeId == typeId) return &t;
    return nullptr;
}

std::unique_ptr<Block> Registry::create(std::string_view typeId, const ParamValues& params) const {
    const BlockType* t = find(typeId);
    if (!t) throw ModelError("unknown block type '" + std::string(typeId) + "'");
    std::unique_ptr<Block> b = t->create(params);
    b->publishShape();
    return b;
}

ParamValues Registry::migrated(std::string_view typeId, int typeVersion, ParamValues params) const {
    const BlockType* type = find(typeId);
    if (!type) throw ModelError("unknown block type '" + std::string(typeId) + "'");
    if (typeVersion > type->info.typeVersion)
        throw ModelError("type " + type->info.typeId + " version " + std::to_string(typeVersion) +
                         " is newer than this program supports (" + std::to_string(type->info.typeVersion) + ")");
    if (typeVersion < type->info.typeVersion && type->migrate) type->migrate(typeVersion, params);
    return params;
}

BlockDescription Registry::describe(std::string_view typeId, const ParamValues& params) const {
    return BlockDescription::of(*create(typeId, params));
}

BlockDescription BlockDescription::of(const Block& b) {
    BlockDescription d{b.info(), b.params(), b.values(), b.ports(), {}, {}};
    for (std::size_t i = 0; i < b.ports().size(); ++i) d.portPresent.push_back(b.portPresent(static_cast<int>(i)));
    for (const RecordedVar& r : b.recorded()) d.recorded.push_back(b.describe(r));
    return d;
}

namespace {
const ParamDesc* findParam(const std::vector<ParamDesc>& params, std::string_view key) {
    for (const ParamDesc& p : params)
        if (p.key == key) return &p;
    return nullptr;
}
}   // namespace

const ParamDesc* BlockType::param(std::string_view key) const { return findParam(params, key); }

const ParamDesc* BlockDescription::param(std::string_view key) const { return findParam(params, key); }

int BlockDescription::portIndex(std::string_view name) const {
    for (std::size_t i = 0; i < ports.size(); ++i)
        if (ports[i].name == name && portPresent[i]) return static_cast<int>(i);
    return -1;
}

std::vector<PortDesc> BlockDescription::presentPorts() const {
    std::vector<PortDesc> out;
    for (std::size_t i = 0; i < ports.size(); ++i)
        if (portPresent[i]) out.push_back(ports[i]);
    return out;
}

std::string BlockDescription::portList() const {
    std::string s;
    for (const PortDesc& p : presentPorts()) s += (s.empty() ? "" : ", ") + p.name;
    return s.empty() ? "none" : s;
}

}   // namespace endstop::core
