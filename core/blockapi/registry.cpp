// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/blockapi/registry.hpp"

#include "core/model/errors.hpp"

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

}  // namespace endstop::core
