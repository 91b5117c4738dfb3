// SPDX-License-Identifier: GPL-3.0-or-later
// Private to the project reader (project_reader.cpp, project_reader_blocks.cpp): the Reader class behind readProject.
#pragma once

#include "core/blockapi/registry.hpp"
#include "core/errors.hpp"
#include "core/io/project_outline.hpp"
#include "core/model/model.hpp"
#include "core/text/quote.hpp"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <simdjson.h>

#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// The elements of a "blocks" or "connections" array: from the DOM, or, for the top level of an
// outlined file, from the text a chunk at a time (project_outline.hpp). An outlined chunk is parsed
// by simdjson into a small document of its own: fast() gives its elements, which the reader takes
// in directly when they have the common shapes (project_reader_fast.cpp). operator[] gives Qt's
// parse of one element, for everything else: the reader's checks and messages are written once,
// against Qt's values (docs/architecture.md, "Loading a large file").
class Elements {
public:
    explicit Elements(QJsonArray array);
    Elements(const OutlinedText& text, const std::vector<TextRange>& ranges);
    Elements(Elements&&) noexcept;
    ~Elements();
    qsizetype size() const { return m_ranges ? static_cast<qsizetype>(m_ranges->size()) : m_array.size(); }
    QJsonValue operator[](qsizetype i) const;
    // simdjson's parse of an outlined element; nullopt for a DOM array's, or if its chunk does not
    // parse so (Qt's parse then decides)
    std::optional<simdjson::dom::element> fast(qsizetype i) const;

private:
    static constexpr qsizetype kChunk = 512;
    void load(qsizetype i) const;   // makes i's chunk the one at hand

    QJsonArray m_array;
    const OutlinedText* m_text = nullptr;
    const std::vector<TextRange>* m_ranges = nullptr;
    mutable qsizetype m_first = -1;            // the chunk at hand: its first element
    mutable bool m_whole = false;              // all of its text was read
    mutable simdjson::padded_string m_piece;   // its text, as "[" elements "]"
    mutable std::unique_ptr<simdjson::dom::parser> m_parser;
    mutable std::vector<simdjson::dom::element> m_fast;   // empty if the chunk does not parse so
};

// A "ui.rotation" in degrees as a quarter turn in [0, 360); nullopt if it is no whole multiple of
// 90 within 1e6.
inline std::optional<int> quarterTurns(double r) {
    if (r != std::floor(r) || std::fmod(r, 90.0) != 0.0 || std::abs(r) > 1e6) return std::nullopt;
    return ((static_cast<int>(r) % 360) + 360) % 360;
}

// A name some scope could hold: the model's parameters or any subsystem's mask.
bool inScope(const model::Model& root, std::string_view name);

// A connection as simdjson parsed it, if it is two strings: its ends (project_reader_fast.cpp)
std::optional<std::pair<std::string, std::string>> fastPair(const std::optional<simdjson::dom::element>& e);

class Reader {
public:
    Reader(QString file, const Registry& registry) : m_file(std::move(file)), m_registry(registry) {}
    // the top level's blocks and connections come from the outline's ranges of `text`
    void outlined(const Outline& outline, const OutlinedText& text) {
        m_outline = &outline;
        m_text = &text;
    }

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
    std::optional<Elements> array(const QJsonObject& o, const char* key, const Context& ctx) const;
    void readBlocks(const Elements& blocks, const Context& ctx, model::Model& body, const model::Model& root);
    // project_reader_fast.cpp: a top-level block as simdjson parsed it, if it has the common shape
    // and passes every check; false (nothing added) sends it to the checks against Qt's parse
    bool readBlockFast(simdjson::dom::element e, model::Model& body, const model::Model& root) const;
    // A JSON path, built only for a message: a 40,000-block file spent a tenth of its load time
    // putting together paths that no message used.
    using PathOf = std::function<QString()>;
    void readParameters(const QJsonValue& v, const PathOf& path, const Context& ctx, model::BlockSpec& spec,
                        const model::Model& root) const;
    void readInstanceParameters(const QJsonValue& v, const PathOf& path, const Context& ctx, model::BlockSpec& spec,
                                const model::SubsystemDef& def) const;
    void readUi(const QJsonValue& v, const PathOf& path, model::BlockSpec& spec, const BlockDescription* proto) const;
    void readDisplayUnits(const QJsonValue& v, const PathOf& path, model::BlockSpec& spec,
                          const BlockDescription* proto) const;
    PortDesc port(const QJsonValue& v, const PathOf& path, const Context& ctx, const model::Model& body,
                  const model::Model& root, model::PortRef& ref);
    PortDesc port(const std::string& text, const PathOf& path, const Context& ctx, const model::Model& body,
                  const model::Model& root, model::PortRef& ref);
    void readConnections(const Elements& cs, const Context& ctx, model::Model& body, const model::Model& root);
    int presentPorts(const model::BlockSpec& spec);
    int presentPortsOf(const model::BlockSpec& spec);   // presentPorts() without the last block's shortcut
    const BlockDescription* prototype(const std::string& type) const;   // one per type, not per block

    QString m_file;
    const Registry& m_registry;
    const Outline* m_outline = nullptr;
    const OutlinedText* m_text = nullptr;
    // The ports present per block of the body whose connections are read: an index into
    // m_portLists (-1: not looked at yet). Blocks of one type and configuration share one list; a
    // list per block cost 17 MB for 40,000 blocks.
    std::vector<int> m_portsOf;
    std::vector<std::vector<PortDesc>> m_portLists;
    // type and parameter values -> index into m_portLists: a configuration is described once,
    // not once per block (describing builds the block)
    std::map<std::string, int, std::less<>> m_portListOf;
    struct LastPorts {   // per type: the given parameters of the last block looked at, and its list
        ParamValues params;
        int list = -1;
    };
    std::map<std::string, LastPorts, std::less<>> m_lastPorts;
    mutable std::map<std::string, std::optional<BlockDescription>> m_prototypes;
};

}   // namespace endstop::core::io::detail
