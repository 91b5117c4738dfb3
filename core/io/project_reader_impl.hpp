// SPDX-License-Identifier: GPL-3.0-or-later
// Private to the project reader (project_reader.cpp, project_reader_blocks.cpp): the Reader class behind readProject.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/errors.hpp"
#include "core/model/model.hpp"
#include "core/text/quote.hpp"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace endstop::core::io::detail {

// Where the reader is: the top level or a subsystem definition's body.
struct Context {
    QString path;            // JSON path prefix: "" or "subsystems.Stage."
    std::string subsystem;   // "" at the top level
    std::string label(const std::string& block) const {
        return subsystem.empty() ? "block \"" + block + "\""
                                 : "block \"" + block + "\" in subsystem \"" + subsystem + "\"";
    }
};

class Reader {
public:
    Reader(QString file, const Registry& registry) : m_file(std::move(file)), m_registry(registry) {}

    // names and keys in a hostile file can be megabytes long: the message keeps it to a line
    [[noreturn]] void fail(const QString& path, const std::string& what) const {
        throw FileFormatError(m_file.toStdString() + ": " + excerpt(path.toStdString(), 120) + ": " +
                              excerpt(what, 400));
    }

    model::Model read(const QJsonObject& root);

private:
    double number(const QJsonValue& v, const QString& path) const {
        if (!v.isDouble()) fail(path, "expected a number");
        return v.toDouble();
    }

    // project_reader.cpp: the top level, parameters, subsystem definitions and plots
    void readSimulation(const QJsonValue& v, model::Model& m) const;
    void readParameterList(const QJsonValue& v, const QString& path, model::Model& into,
                           const std::string& owner) const;
    void syntax(const std::string& text, const QString& path, const std::string& what) const;
    void readSubsystems(const QJsonValue& v, model::Model& m);
    void readPorts(const QJsonValue& v, const QString& path, model::SubsystemDef& def) const;
    void readPlots(const QJsonValue& v, model::Model& m) const;
    void checkHierarchy(const model::Model& m) const;

    // project_reader_blocks.cpp: a body's blocks, instances, ui and connections
    void readBody(const QJsonObject& o, const Context& ctx, model::Model& body, const model::Model& root);
    void readBlocks(const QJsonValue& v, const Context& ctx, model::Model& body, const model::Model& root);
    void readParameters(const QJsonValue& v, const QString& path, const Context& ctx, model::BlockSpec& spec,
                        const model::Model& root) const;
    void readInstanceParameters(const QJsonValue& v, const QString& path, const Context& ctx, model::BlockSpec& spec,
                                const model::SubsystemDef& def) const;
    void readUi(const QJsonValue& v, const QString& path, model::BlockSpec& spec, const BlockDescription* proto) const;
    void readDisplayUnits(const QJsonValue& v, const QString& path, model::BlockSpec& spec,
                          const BlockDescription* proto) const;
    PortDesc port(const QJsonValue& v, const QString& path, const Context& ctx, const model::Model& body,
                  const model::Model& root, model::PortRef& ref);
    void readConnections(const QJsonValue& v, const Context& ctx, model::Model& body, const model::Model& root);
    const BlockDescription* prototype(const std::string& type) const;   // one per type, not per block

    QString m_file;
    const Registry& m_registry;
    std::map<std::string, std::optional<std::vector<PortDesc>>> m_instances;   // by "subsystem/block": ports present
    mutable std::map<std::string, std::optional<BlockDescription>> m_prototypes;
};

}   // namespace endstop::core::io::detail
