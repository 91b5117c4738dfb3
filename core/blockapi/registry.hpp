// SPDX-License-Identifier: GPL-3.0-or-later
// Registry: block type id -> factory. Registration is explicit (blocks/registry.cpp), one line a
// block; there are no self-registering statics.
#pragma once

#include "core/blockapi/block.hpp"

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace endstop::core {

// What a block type looks like for some parameter values: everything the loader, the editor and
// the CLI ask about a block without running it. A value, so callers keep no Block around.
struct BlockDescription {
    BlockInfo info;
    std::vector<ParamDesc> params;
    ParamValues values;              // resolved: given or default, SI
    std::vector<PortDesc> ports;     // every declared port, present or not
    std::vector<bool> portPresent;   // false: hidden by its choice parameter
    std::vector<VarDesc> recorded;   // the recorded variables, in declaration order

    static BlockDescription of(const Block& b);
    const ParamDesc* param(std::string_view key) const;   // nullptr if none
    int portIndex(std::string_view name) const;           // -1 if none (or hidden)
    std::vector<PortDesc> presentPorts() const;           // the ports not hidden, in order
    std::string portList() const;                         // "R, C": the ports present, or "none"
};

struct BlockType {
    BlockInfo info;
    std::function<std::unique_ptr<Block>(const ParamValues&)> create;
    // Brings parameters written by an older typeVersion up to date (renamed keys, new meanings).
    std::function<void(int fromVersion, ParamValues&)> migrate;
    // the parameter descriptors (as the defaults configure the block): readers that only ask
    // a parameter's type or unit need not build a block
    std::vector<ParamDesc> params;
    const ParamDesc* param(std::string_view key) const;   // nullptr if none
};

class Registry {
public:
    template <class B> void add(std::function<void(int, ParamValues&)> migrate = {}) {
        add([](const ParamValues& p) -> std::unique_ptr<Block> { return std::make_unique<B>(p); }, std::move(migrate));
    }
    // A factory, for one class serving several types (the rotational twin of a translational block)
    void add(std::function<std::unique_ptr<Block>(const ParamValues&)> create,
             std::function<void(int, ParamValues&)> migrate = {}) {
        const std::unique_ptr<Block> defaults = create({});
        addType(BlockType{defaults->info(), std::move(create), std::move(migrate), defaults->params()});
    }
    // Classes constructed as B(params, domain), one type per domain: for each domain in turn,
    // each class in turn (the registration order is the order the library lists them in).
    template <class... B>
    void addTwins(std::initializer_list<Domain> domains = {Domain::Translational, Domain::Rotational}) {
        for (Domain d : domains)
            (add([d](const ParamValues& p) -> std::unique_ptr<Block> { return std::make_unique<B>(p, d); }), ...);
    }
    // One class's twins, with the migration of parameters its older type versions wrote
    template <class B> void addTwins(std::function<void(int, ParamValues&)> migrate) {
        for (Domain d : {Domain::Translational, Domain::Rotational})
            add([d](const ParamValues& p) -> std::unique_ptr<Block> { return std::make_unique<B>(p, d); }, migrate);
    }
    void addType(BlockType type);

    const BlockType* find(std::string_view typeId) const;
    const std::vector<BlockType>& types() const { return m_types; }   // registration order
    // throws ModelError for an unknown type id
    std::unique_ptr<Block> create(std::string_view typeId, const ParamValues& params) const;
    std::unique_ptr<Block> prototype(std::string_view typeId) const { return create(typeId, {}); }
    // Parameters written by `typeVersion` of the type brought up to the registered version (the
    // type's migrate step). Throws ModelError for an unknown type or a version newer than this
    // program's. The one place a block's parameters are migrated: flatten.hpp's currentParams()
    // applies it to a model's block.
    ParamValues migrated(std::string_view typeId, int typeVersion, ParamValues params) const;
    // The type's ports, parameters and recorded variables for these values (default: the
    // defaults); throws ModelError for an unknown type id. The engine, which needs the equations,
    // calls create().
    BlockDescription describe(std::string_view typeId, const ParamValues& params = {}) const;

private:
    std::vector<BlockType> m_types;
};

}   // namespace endstop::core
