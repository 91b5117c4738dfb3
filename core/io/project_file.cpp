// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/project_file.hpp"

#include "core/expr/expression.hpp"
#include "core/io/migrate.hpp"
#include "core/io/output_file.hpp"
#include "core/io/project_json.hpp"
#include "core/io/project_outline.hpp"
#include "core/io/project_reader.hpp"
#include "core/errors.hpp"
#include "core/text/quote.hpp"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace endstop::core::io {

ParamValue realText(const std::string& text, const ParamDesc& d, const std::function<bool(std::string_view)>& known) {
    try {
        return parseParameterText(text, d);
    } catch (const FileFormatError& quantity) {
        if (std::string_view(quantity.what()).find("finite") != std::string_view::npos) throw;   // "nan", "inf m/s"
        try {
            const expr::Expression e = expr::Expression::parse(text);
            const std::vector<std::string> names = e.names();
            // a lone word that names nothing in scope was meant as a value: "heavy" is not a number
            const bool loneWord = names.size() == 1 && text.find_first_not_of(" ") == text.find(names[0]) &&
                                  text.find_last_not_of(" ") + 1 == text.find(names[0]) + names[0].size();
            if (e.plainQuantity() || (loneWord && !(known && known(names[0])))) throw;
            return text;
        } catch (const expr::ExprError& e) {
            // text that starts like a number was meant as a quantity: its error says more
            const auto first = text.find_first_not_of(' ');
            const char c = first == std::string::npos ? ' ' : text[first];
            if ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+') throw quantity;
            throw FileFormatError(d.key + ": " + quoteText(text, '"') + ": " + e.what());
        }
    }
}

ParamValue parseParameterText(const std::string& text, const ParamDesc& d) {
    try {
        switch (d.type) {
            case ParamType::Real:
                if (d.anyDimension) {
                    const Quantity q = parseQuantity(text);
                    return q.unit ? checkedSI(text, q.unit->toSI(q.value)) : q.value;
                }
                return parseSI(text, d.unit.dimension);
            case ParamType::Vector: {
                const auto open = text.find('['), close = text.rfind(']');
                if (open == std::string::npos || close == std::string::npos || close < open)
                    throw FileFormatError("expected a vector like [0 0.01 0.02], got " + quoteText(text, '"'));
                const std::string unit = text.substr(close + 1);
                std::string body = text.substr(open + 1, close - open - 1);
                for (char& c : body)
                    if (c == ',' || c == ';') c = ' ';
                std::vector<double> xs;
                std::size_t pos = 0;
                while (true) {
                    pos = body.find_first_not_of(' ', pos);
                    if (pos == std::string::npos) break;
                    const std::size_t end = body.find(' ', pos);
                    const std::string item = body.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
                    xs.push_back(parseSI(item + " " + unit, d.unit.dimension));
                    pos = end;
                }
                return xs;
            }
            case ParamType::Choice:
                for (const ChoiceOption& o : d.choices)
                    if (o.key == text) return text;
                {
                    std::string keys;
                    for (const ChoiceOption& o : d.choices) keys += (keys.empty() ? "" : ", ") + o.key;
                    throw FileFormatError("unknown value " + quoteText(text, '"') + " for " + d.key +
                                          ", expected one of: " + keys);
                }
            case ParamType::Text:
                return text;
        }
    } catch (const UnitError& e) {
        throw FileFormatError(d.key + ": " + e.what());
    }
    return 0.0;
}

namespace {

// What every version shares: the format and a version this program reads. Returns the version.
int checkHeader(const QJsonObject& root, const std::string& file) {
    if (root.value("format").toString() != "endstop-project")
        throw FileFormatError(file + ": format: expected \"endstop-project\" (is this an Endstop project file?)");
    // range-checked as a double before any conversion: 1e300 must not wrap to an int
    const QJsonValue version = root.value("formatVersion");
    if (!version.isDouble() || version.toDouble() != std::floor(version.toDouble()) || version.toDouble() < 1)
        throw FileFormatError(file + ": formatVersion: expected a whole number >= 1");
    if (version.toDouble() > kFormatVersion)
        throw FileFormatError(file + ": formatVersion: version " + formatNumber(version.toDouble()) +
                              " is newer than this program supports (" + std::to_string(kFormatVersion) +
                              "); update Endstop");
    return version.toInt();
}

// The whole file, read into a buffer of its size: readAll() rounds its buffer up to a power of two
// (32 MB for a 20 MB file).
QByteArray readWhole(QFile& f) {
    if (f.isSequential() || f.size() <= 0) return f.readAll();
    QByteArray bytes(f.size(), Qt::Uninitialized);
    const qint64 n = f.read(bytes.data(), bytes.size());
    if (n < 0) return {};   // as readAll() gives it: the parser reports an empty file
    bytes.truncate(n);      // the file shrank since its size was taken
    if (!f.atEnd()) bytes += f.readAll();
    return bytes;
}

// A current file read from its outline, one block and connection at a time; nullopt if the outline
// or any piece of it fails, or the file is of an older version.
std::optional<model::Model> readOutlined(const Outline& o, const OutlinedText& text, const QString& fileLabel,
                                         const Registry& registry) {
    try {
        const QJsonObject skeleton = QJsonDocument::fromJson(o.skeleton).object();
        if (checkHeader(skeleton, fileLabel.toStdString()) == kFormatVersion)
            return readProject(skeleton, o, text, fileLabel, registry);
    } catch (const Error&) {}
    return std::nullopt;
}

// The whole text as one DOM: older versions (migrated as a whole), whatever the outline does not
// take, and every error's message.
model::Model readWholeText(const QByteArray& bytes, const QString& fileLabel, const Registry& registry) {
    QJsonObject root = parseJsonObject(bytes, fileLabel);
    const int version = checkHeader(root, fileLabel.toStdString());
    if (version < kFormatVersion) root = migrateFormat(std::move(root), version, registry);
    return readProject(root, fileLabel, registry);
}

}   // namespace

// A current file is read from its outline, one block and connection at a time; anything the outline
// does not take, and older versions, from one DOM of the file. Any failure on the outlined path (a
// piece that does not parse, a bad value) is reported by the whole-file read, as it always was: the
// error path reads twice, a good file once.
model::Model parseProject(const QByteArray& bytes, const QString& fileLabel, const Registry& registry) {
    if (const std::optional<Outline> o = outline(bytes))
        if (std::optional<model::Model> m = readOutlined(*o, OutlinedText(bytes), fileLabel, registry))
            return std::move(*m);
    return readWholeText(bytes, fileLabel, registry);
}

// As parseProject(), without keeping the text while the model is built: once outlined, the pieces
// are read again from the open file a chunk at a time. If the outlined read fails (or the file
// changed under it), the whole file is read again and parsed as one DOM.
model::Model loadProject(const QString& path, const Registry& registry) {
    QFile f(path);
    if (!f.exists()) throw FileFormatError(path.toStdString() + ": no such file");
    if (!f.open(QIODevice::ReadOnly))
        throw FileFormatError(path.toStdString() + ": cannot read: " + f.errorString().toStdString());
    if (f.isSequential()) return parseProject(readWhole(f), path, registry);   // a pipe reads once
    QByteArray bytes = readWhole(f);
    if (const std::optional<Outline> o = outline(bytes)) {
        bytes = QByteArray();
        if (std::optional<model::Model> m = readOutlined(*o, OutlinedText(f), path, registry)) return std::move(*m);
        if (!f.seek(0)) throw FileFormatError(path.toStdString() + ": cannot read: " + f.errorString().toStdString());
        bytes = readWhole(f);
    }
    return readWholeText(bytes, path, registry);
}

QByteArray serializeProject(const model::Model& model) {
    QJsonObject root;
    root["format"] = "endstop-project";
    root["formatVersion"] = kFormatVersion;
    root["generator"] = kGenerator;
    const model::SimulationSettings& s = model.simulation();
    QJsonObject simulation{{"stop_time", s.stopTime},
                           {"relative_tolerance", s.relativeTolerance},
                           {"absolute_tolerance", s.absoluteTolerance},
                           {"max_step", s.maxStep},
                           {"output_interval", s.outputInterval},
                           {"linear_solver", toString(s.linearSolver)}};
    if (!s.reduce) simulation["reduce"] = false;   // written only when off: a file without it runs reduced
    root["simulation"] = simulation;
    if (!model.parameters().empty()) root["parameters"] = parametersJson(model.parameters());
    if (!model.subsystems().empty()) {
        QJsonObject defs;
        for (const model::SubsystemDef& d : model.subsystems()) defs[QString::fromStdString(d.name)] = subsystemJson(d);
        root["subsystems"] = defs;
    }
    root["blocks"] = blocksJson(model);
    root["connections"] = connectionsJson(model);
    QJsonArray plots;
    for (const model::PlotSpec& p : model.plots()) {
        QJsonArray signals;
        for (const std::string& s2 : p.signals) signals.append(QString::fromStdString(s2));
        plots.append(QJsonObject{{"title", QString::fromStdString(p.title)}, {"signals", signals}});
    }
    root["plots"] = plots;
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

void saveProject(const model::Model& model, const QString& path) { writeFile(path, serializeProject(model)); }

}   // namespace endstop::core::io
