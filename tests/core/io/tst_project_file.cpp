// SPDX-License-Identifier: GPL-3.0-or-later
// Project files (docs/file-format.md): deterministic round trip, SI conversion of values with units,
// atomic saving, and every bad input refused with a message naming the file, the JSON path and
// what was expected. Problems only the network can see (ranges, open inputs) are reported when the
// model is built, naming the block and the parameter or port.
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include "core/graph/topology.hpp"
#include "core/io/project_file.hpp"
#include "core/model/errors.hpp"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>

using namespace endstop;
using core::io::loadProject;
using core::io::parseProject;
using core::io::saveProject;
using core::io::serializeProject;

namespace {

constexpr double kPi = std::numbers::pi;

// Exercises every part of the format: settings, units, vectors, choices, text, ui, plots.
const char* kRich = R"json({
  "format": "endstop-project", "formatVersion": 1, "generator": "somebody else 9",
  "simulation": { "stop_time": 2.5, "relative_tolerance": 1e-7, "absolute_tolerance": 1e-9,
                  "max_step": 0.01, "output_interval": 0.001, "linear_solver": "dense" },
  "blocks": [
    { "name": "table", "type": "signal.table", "typeVersion": 1,
      "parameters": { "times": "[0 100 200] ms", "values": [0, 1.5, "2"], "interpolation": "hold" },
      "ui": { "pos": [0, -20.5], "rotation": -90, "flip": true, "units": { "times": "ms" } } },
    { "name": "sum", "type": "signal.sum", "parameters": { "signs": "+-" } },
    { "name": "one", "type": "signal.constant", "parameters": { "value": 0.1 } },
    { "name": "src", "type": "rotational.torque_source" },
    { "name": "J", "type": "rotational.inertia",
      "parameters": { "inertia": "5 g*cm^2", "initial_velocity": "300 rpm", "initial_position": "90 deg" } },
    { "name": "k", "type": "rotational.spring", "parameters": { "stiffness": "1 N*m/deg" } },
    { "name": "d", "type": "rotational.damper", "parameters": { "damping": "0.01 N m/(rpm)" } },
    { "name": "g", "type": "rotational.reference" }
  ],
  "connections": [ ["table.y", "sum.u1"], ["one.y", "sum.u2"], ["sum.y", "src.S"], ["src.R", "J.I"],
                   ["src.C", "g.R"], ["J.I", "k.R"], ["k.C", "g.R"], ["d.R", "J.I"], ["d.C", "g.R"] ],
  "plots": [ { "title": "Flywheel", "signals": ["J.w", "J.phi"] }, { "title": "", "signals": [] } ]
})json";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(path));
    return path;
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

double param(const core::Model& m, const char* block, const char* key) {
    return std::get<double>(m.find(block)->params.at(key));
}

// numbers computed two ways agree to a few ulps
const endstop::test::Relative kClose = endstop::test::relative(1e-15);

QString loadError(const QString& path) {
    try {
        loadProject(path, blocks::registry());
    } catch (const core::FileFormatError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

class TestProjectFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data() {
        QTest::addColumn<QString>("file");   // an example, or "" for kRich
        QTest::newRow("rich") << "";
        for (const QString& f : QDir(test::sourcePath("resources/examples")).entryList({"*.endstop"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << f;
    }
    void roundTrip() {
        QFETCH(QString, file);
        const core::Model loaded = file.isEmpty() ? parseProject(kRich, "rich.endstop", blocks::registry()) : test::loadExample(file);
        const QByteArray first = serializeProject(loaded);
        const core::Model again = parseProject(first, "again.endstop", blocks::registry());
        const QByteArray second = serializeProject(again);
        QCOMPARE(second, first);
        QVERIFY(again.blocks() == loaded.blocks());
        QVERIFY(again.plots() == loaded.plots());
        QVERIFY(again.simulation() == loaded.simulation());
        QCOMPARE(again.connections().size(), loaded.connections().size());
        for (std::size_t i = 0; i < loaded.connections().size(); ++i) {
            QVERIFY(again.connections()[i].a == loaded.connections()[i].a);
            QVERIFY(again.connections()[i].b == loaded.connections()[i].b);
        }
    }

    void savedFileIsDeterministic() {
        QTemporaryDir dir;
        core::Model m = parseProject(kRich, "rich.endstop", blocks::registry());
        // awkward doubles survive exactly
        m.apply(core::SetParameter{"one", "value", core::ParamValue{0.1 + 0.2}});
        m.apply(core::SetParameter{"J", "initial_position", core::ParamValue{1.0 / 3.0}});
        m.apply(core::SetParameter{"k", "stiffness", core::ParamValue{1e20}});
        m.apply(core::SetParameter{"d", "damping", core::ParamValue{5e-324}});
        const QString a = dir.filePath("a.endstop"), b = dir.filePath("b.endstop");
        saveProject(m, a);
        saveProject(m, a);   // over itself
        saveProject(loadProject(a, blocks::registry()), b);
        QCOMPARE(readFile(b), readFile(a));
        QCOMPARE(readFile(a), serializeProject(m));
        const core::Model back = loadProject(b, blocks::registry());
        QCOMPARE(param(back, "one", "value"), 0.1 + 0.2);
        QCOMPARE(param(back, "J", "initial_position"), 1.0 / 3.0);
        QCOMPARE(param(back, "k", "stiffness"), 1e20);
        QCOMPARE(param(back, "d", "damping"), 5e-324);
        // keys sorted, SI numbers, header first
        const QJsonObject root = QJsonDocument::fromJson(readFile(a)).object();
        QCOMPARE(root["format"].toString(), QString("endstop-project"));
        QCOMPARE(root["formatVersion"].toInt(), core::io::kFormatVersion);
        QCOMPARE(root["generator"].toString(), QString(core::io::kGenerator));
        const QJsonObject inertia = root["blocks"].toArray()[4].toObject()["parameters"].toObject();
        QVERIFY(inertia["initial_velocity"].isDouble());
        QCOMPARE_NEAR(inertia["initial_velocity"].toDouble(), 10 * kPi, kClose);
        const QByteArray text = readFile(a);
        QVERIFY(text.indexOf("\"inertia\"") < text.indexOf("\"initial_position\""));
        QVERIFY(text.indexOf("\"initial_position\"") < text.indexOf("\"initial_velocity\""));
        QVERIFY(!text.contains("rpm"));
    }

    void valuesWithUnitsAreSI() {
        const core::Model m = parseProject(kRich, "rich.endstop", blocks::registry());
        QCOMPARE_NEAR(param(m, "J", "inertia"), 5e-7, kClose);
        QCOMPARE_NEAR(param(m, "J", "initial_velocity"), 10 * kPi, kClose);
        QCOMPARE_NEAR(param(m, "J", "initial_position"), kPi / 2, kClose);
        QCOMPARE_NEAR(param(m, "k", "stiffness"), 180 / kPi, kClose);
        QCOMPARE_NEAR(param(m, "d", "damping"), 0.01 * 60 / (2 * kPi), kClose);
        QCOMPARE(param(m, "one", "value"), 0.1);
        const auto& times = std::get<std::vector<double>>(m.find("table")->params.at("times"));
        QCOMPARE(times.size(), std::size_t(3));
        QCOMPARE(times[0], 0.0);
        QCOMPARE_NEAR(times[1], 0.1, kClose);
        QCOMPARE_NEAR(times[2], 0.2, kClose);
        const auto& values = std::get<std::vector<double>>(m.find("table")->params.at("values"));
        QVERIFY(values == (std::vector<double>{0, 1.5, 2}));
        QCOMPARE(std::get<std::string>(m.find("table")->params.at("interpolation")), std::string("hold"));
        QCOMPARE(std::get<std::string>(m.find("sum")->params.at("signs")), std::string("+-"));
        // settings, ui and plots as written; omitted typeVersion is the current one
        QCOMPARE(m.simulation().stopTime, 2.5);
        QCOMPARE(m.simulation().maxStep, 0.01);
        QCOMPARE(m.simulation().linearSolver, core::LinearSolver::Dense);
        QCOMPARE(m.find("table")->ui.rotation, 270);
        QVERIFY(m.find("table")->ui.flipped);
        QCOMPARE(m.find("table")->ui.y, -20.5);
        QCOMPARE(m.find("table")->ui.displayUnits.at("times"), std::string("ms"));
        QCOMPARE(m.find("sum")->typeVersion, 1);
        QCOMPARE(m.plots().size(), std::size_t(2));
        QCOMPARE(m.plots()[0].signals.size(), std::size_t(2));
        // and the model runs
        QVERIFY(!core::hasErrors(core::validateModel(m, blocks::registry())));
    }

    // a minimal file: omitted settings and parameters take their defaults
    void defaults() {
        const core::Model m = parseProject(R"({"format":"endstop-project","formatVersion":1,
            "blocks":[{"name":"m","type":"translational.mass"}]})", "min.endstop", blocks::registry());
        QVERIFY(m.simulation() == core::SimulationSettings{});
        QVERIFY(m.find("m")->params.empty());
        QVERIFY(m.connections().empty());
        QVERIFY(m.plots().empty());
    }

    // an older formatVersion goes through the migration hook and loads
    // Version 1 is the first: 0, negative, fractional and huge versions are refused, range-checked
    // as doubles (1e300 once wrapped to an int that passed), and so are huge type versions.
    void versionsOutOfRange_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        const QByteArray mass = R"("blocks":[{"name":"m","type":"translational.mass","typeVersion":TV}])";
        auto file = [&](const char* fv, const char* tv = "1") {
            return QByteArray(R"({"format":"endstop-project","formatVersion":)") + fv + "," + QByteArray(mass).replace("TV", tv) + "}";
        };
        QTest::newRow("0") << file("0") << "formatVersion: expected a whole number >= 1";
        QTest::newRow("-1") << file("-1") << "formatVersion: expected a whole number >= 1";
        QTest::newRow("1.5") << file("1.5") << "formatVersion: expected a whole number >= 1";
        QTest::newRow("1e300") << file("1e300") << "formatVersion: version 1e+300 is newer than this program supports";
        QTest::newRow("2147483648") << file("2147483648") << "newer than this program supports";
        QTest::newRow("typeVersion 1e300") << file("1", "1e300") << "blocks[0].typeVersion: block \"m\": type version 1e+300 is newer";
        QTest::newRow("typeVersion 4294967297") << file("1", "4294967297") << "type version 4294967297 is newer";
        QTest::newRow("typeVersion 0") << file("1", "0") << "typeVersion: expected a whole number >= 1";
    }
    void versionsOutOfRange() {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        QString message;
        try {
            parseProject(json, "v.endstop", blocks::registry());
        } catch (const core::FileFormatError& e) {
            message = e.what();
        }
        QVERIFY2(message.startsWith("v.endstop: ") && message.contains(expected), qPrintable(message));
    }

    void atomicSave() {
        QTemporaryDir dir;
        const core::Model m = parseProject(kRich, "rich.endstop", blocks::registry());
        // the parent is missing / is a regular file / the target is a directory
        const QString file = writeFile(dir, "plain.txt", "keep");
        for (const QString& path : {dir.filePath("missing/sub/x.endstop"), file + "/x.endstop", dir.path()}) {
            QString message;
            try {
                saveProject(m, path);
            } catch (const core::IoError& e) {
                message = e.what();
            }
            QVERIFY2(message.contains(path) && message.contains("cannot write"), qPrintable(path + " -> " + message));
        }
        QCOMPARE(readFile(file), QByteArray("keep"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{"plain.txt"});
        // a good save replaces the old file whole and leaves no temporary behind
        const QString target = writeFile(dir, "model.endstop", "old contents");
        saveProject(m, target);
        QCOMPARE(readFile(target), serializeProject(m));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), (QStringList{"model.endstop", "plain.txt"}));
    }

    // Each bad file: the message names the file, the JSON path and what was expected.
    void badFiles_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QStringList>("expected");   // fragments of the message, after the file name
        const QByteArray head = R"("format": "endstop-project", "formatVersion": 1, )";
        auto file = [&](const QByteArray& blocks, const QByteArray& connections = "[]") {
            return "{" + head + "\"blocks\": [" + blocks + "], \"connections\": " + connections + "}";
        };
        const QByteArray mass = R"({"name": "m", "type": "translational.mass"})";
        const QByteArray ground = R"({"name": "g", "type": "translational.reference"})";
        QTest::newRow("malformed JSON") << QByteArray("{\n  \"format\": \"endstop-project\",\n  \"blocks\": [ {\"name\": \"m\" \"type\": 1} ]\n}")
                                        << QStringList{":3:", "malformed JSON"};
        QTest::newRow("malformed after non-ASCII") << QByteArray("{\"format\": \"endstop-project\",\n\"plots\": [{\"title\": \"Schwungrad \xc3\xbc\xc3\xbc\", ]}")
                                                   << QStringList{":2:39:", "malformed JSON"};   // "]" at column 38, as for ASCII
        QTest::newRow("truncated") << QByteArray("{\"format\": \"endstop-project\",\n\"blocks\": [") << QStringList{":2:", "malformed JSON"};
        QTest::newRow("not an object") << QByteArray("[1, 2]") << QStringList{"expected a JSON object"};
        QTest::newRow("not a project") << QByteArray(R"({"format": "something", "formatVersion": 1})")
                                       << QStringList{": format:", "endstop-project"};
        QTest::newRow("newer formatVersion") << QByteArray(R"({"format": "endstop-project", "formatVersion": 7})")
                                             << QStringList{": formatVersion:", "version 7 is newer", "(2)"};
        QTest::newRow("formatVersion not a number") << QByteArray(R"({"format": "endstop-project", "formatVersion": "1"})")
                                                    << QStringList{": formatVersion:", "expected a whole number >= 1"};
        QTest::newRow("unknown top-level key") << "{" + head + R"("blocs": []})" << QStringList{": blocs:", "unknown key"};
        QTest::newRow("unknown block type") << file(mass + R"(, {"name": "s", "type": "translational.sprung"})")
                                            << QStringList{": blocks[1].type:", "unknown block type \"translational.sprung\"", "\"s\""};
        QTest::newRow("newer typeVersion") << file(R"({"name": "m", "type": "translational.mass", "typeVersion": 3})")
                                           << QStringList{": blocks[0].typeVersion:", "\"m\"", "version 3 is newer"};
        QTest::newRow("fractional typeVersion") << file(R"({"name": "m", "type": "translational.mass", "typeVersion": 1.5})")
                                                << QStringList{": blocks[0].typeVersion:", "whole number"};
        QTest::newRow("unknown block key") << file(R"({"name": "m", "type": "translational.mass", "colour": 1})")
                                           << QStringList{": blocks[0].colour:", "unknown key"};
        QTest::newRow("duplicate block names") << file(mass + ", " + ground + R"(, {"name": "m", "type": "translational.spring"})")
                                               << QStringList{": blocks[2].name:", "duplicate block name \"m\""};
        QTest::newRow("invalid block name") << file(R"({"name": "mass 1", "type": "translational.mass"})")
                                            << QStringList{": blocks[0].name:", "expected a block name", "\"mass 1\""};
        QTest::newRow("missing block name") << file(R"({"type": "translational.mass"})")
                                            << QStringList{": blocks[0].name:", "expected a block name"};
        QTest::newRow("unknown parameter key") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mas": 1}})")
                                               << QStringList{": blocks[0].parameters.mas:", "\"m\"", "translational.mass", "no parameter \"mas\""};
        QTest::newRow("wrong unit dimension") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "10 mm"}})")
                                              << QStringList{": blocks[0].parameters.mass:", "\"m\"", "'mm'", "expected kg"};
        QTest::newRow("wrong unit, rotational") << file(R"({"name": "k", "type": "rotational.spring", "parameters": {"stiffness": "5 N/m"}})")
                                                << QStringList{": blocks[0].parameters.stiffness:", "'N/m'", "N*m/rad"};
        QTest::newRow("unknown unit") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "2 slug"}})")
                                      << QStringList{": blocks[0].parameters.mass:", "unknown unit 'slug'"};
        QTest::newRow("NaN as a string") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "nan"}})")
                                         << QStringList{": blocks[0].parameters.mass:", "not a finite number"};
        QTest::newRow("inf as a string") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"initial_velocity": "inf m/s"}})")
                                         << QStringList{": blocks[0].parameters.initial_velocity:", "not a finite number"};
        QTest::newRow("-Infinity as a string") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "-Infinity"}})")
                                               << QStringList{": blocks[0].parameters.mass:", "not a finite number"};
        QTest::newRow("NaN in a vector") << file(R"({"name": "t", "type": "signal.table", "parameters": {"values": [0, "nan"]}})")
                                         << QStringList{": blocks[0].parameters.values:", "not a finite number"};
        QTest::newRow("overflowing number") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": 1e999}})")
                                            << QStringList{":1:", "malformed JSON", "illegal number"};
        QTest::newRow("number of wrong type") << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": true}})")
                                              << QStringList{": blocks[0].parameters.mass:", "expected a number"};
        QTest::newRow("vector of wrong type") << file(R"({"name": "t", "type": "signal.table", "parameters": {"times": [0, null]}})")
                                              << QStringList{": blocks[0].parameters.times:", "expected numbers"};
        QTest::newRow("unknown choice") << file(R"({"name": "t", "type": "signal.table", "parameters": {"interpolation": "cubic"}})")
                                        << QStringList{": blocks[0].parameters.interpolation:", "\"cubic\"", "linear, hold"};
        QTest::newRow("bad rotation") << file(R"({"name": "m", "type": "translational.mass", "ui": {"rotation": 45}})")
                                      << QStringList{": blocks[0].ui.rotation:", "multiple of 90"};
        QTest::newRow("bad position") << file(R"({"name": "m", "type": "translational.mass", "ui": {"pos": [1]}})")
                                      << QStringList{": blocks[0].ui.pos:", "[x, y]"};
        QTest::newRow("display unit of wrong dimension") << file(R"({"name": "m", "type": "translational.mass", "ui": {"units": {"mass": "mm"}}})")
                                                         << QStringList{": blocks[0].ui.units.mass:", "'mm'", "expected kg"};
        QTest::newRow("unknown display unit") << file(R"({"name": "m", "type": "translational.mass", "ui": {"units": {"mass": "slug"}}})")
                                              << QStringList{": blocks[0].ui.units.mass:", "unknown unit 'slug'"};
        QTest::newRow("display unit of no parameter") << file(R"({"name": "m", "type": "translational.mass", "ui": {"units": {"weight": "g"}}})")
                                                      << QStringList{": blocks[0].ui.units.weight:", "no numeric parameter \"weight\""};
        QTest::newRow("unknown setting") << "{" + head + R"("simulation": {"stoptime": 1}})"
                                         << QStringList{": simulation.stoptime:", "unknown setting"};
        QTest::newRow("bad linear solver") << "{" + head + R"("simulation": {"linear_solver": "lu"}})"
                                           << QStringList{": simulation.linear_solver:", "\"klu\""};
        QTest::newRow("setting not a number") << "{" + head + R"("simulation": {"stop_time": "2 s"}})"
                                              << QStringList{": simulation.stop_time:", "expected a number"};
        QTest::newRow("connection not a pair") << file(mass, R"([["m.M"]])")
                                               << QStringList{": connections[0]:", R"(expected ["block.port", "block.port"])"};
        QTest::newRow("connection end malformed") << file(mass + ", " + ground, R"([["m.M", "g"]])")
                                                  << QStringList{": connections[0][1]:", "expected \"block.port\""};
        QTest::newRow("connection to unknown block") << file(mass, R"([["m.M", "ground.R"]])")
                                                     << QStringList{": connections[0][1]:", "no block named \"ground\""};
        QTest::newRow("unknown port") << file(mass + ", " + ground, R"([["m.M", "g.R"], ["g.X", "m.M"]])")
                                      << QStringList{": connections[1][0]:", "\"g\"", "translational.reference", "no port \"X\"", "ports: R"};
        QTest::newRow("hidden port") << file(R"({"name": "s", "type": "signal.sum", "parameters": {"signs": "++"}}, {"name": "c", "type": "signal.constant"})",
                                             R"([["c.y", "s.u3"]])")
                                     << QStringList{": connections[0][1]:", "no port \"u3\"", "ports: u1, u2, y"};
        QTest::newRow("wire between domains") << file(mass + R"(, {"name": "J", "type": "rotational.inertia"})", R"([["m.M", "J.I"]])")
                                              << QStringList{": connections[0]:", "m.M (translational)", "J.I (rotational)", "different domains"};
        QTest::newRow("signal to conserving port") << file(mass + R"(, {"name": "c", "type": "signal.constant"})", R"([["c.y", "m.M"]])")
                                                   << QStringList{": connections[0]:", "c.y (signal)", "m.M (translational)"};
        QTest::newRow("duplicate connection") << file(mass + ", " + ground, R"([["m.M", "g.R"], ["g.R", "m.M"]])")
                                              << QStringList{": connections[1]:", "already connected"};
    }
    void badFiles() {
        QFETCH(QByteArray, json);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        const QString path = writeFile(dir, "bad.endstop", json);
        const QString message = loadError(path);
        QVERIFY2(!message.isEmpty(), "loaded without error");
        QVERIFY2(message.startsWith(path), qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
        for (const QString& fragment : expected) QVERIFY2(message.contains(fragment), qPrintable(message + "\n   lacks: " + fragment));
        // a syntax error points at the offending token: "type" on line 3 starts at column 28
        if (QByteArray(QTest::currentDataTag()) == "malformed JSON")
            QVERIFY2(QRegularExpression(":3:(2[7-9]|30): ").match(message).hasMatch(), qPrintable(message));
    }

    void missingFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("nothing.endstop");
        const QString message = loadError(path);
        QVERIFY2(message.startsWith(path) && message.contains("no such file"), qPrintable(message));
    }

    // Out-of-range values load (the editor can open and fix the file) and are refused when the
    // network is built, by Block::validate, naming block and parameter with the range.
    void rangeErrorsWhenBuilding_data() {
        QTest::addColumn<QByteArray>("blocks");
        QTest::addColumn<QString>("expected");
        QTest::newRow("negative mass") << QByteArray(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": -1}})")
                                       << "block 'm', parameter 'mass': must be > 0 kg, got -1 kg";
        QTest::newRow("zero mass with unit") << QByteArray(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "0 g"}})")
                                             << "block 'm', parameter 'mass': must be > 0 kg, got 0 kg";
        QTest::newRow("negative stiffness") << QByteArray(R"({"name": "k", "type": "rotational.spring", "parameters": {"stiffness": "-1 N*m/deg"}})")
                                            << "block 'k', parameter 'stiffness': must be >= 0 N*m/rad";
        QTest::newRow("negative damping") << QByteArray(R"({"name": "d", "type": "translational.damper", "parameters": {"damping": -3}})")
                                          << "block 'd', parameter 'damping': must be >= 0 N*s/m";
        QTest::newRow("zero radius") << QByteArray(R"({"name": "w", "type": "mechanical.wheel_axle", "parameters": {"radius": 0}})")
                                     << "block 'w', parameter 'radius': must be > 0 m";
        QTest::newRow("pulse width over period") << QByteArray(R"({"name": "p", "type": "signal.pulse", "parameters": {"width": 2, "period": 1}})")
                                                 << "block 'p', parameter 'width': must be <= period";
    }
    void rangeErrorsWhenBuilding() {
        QFETCH(QByteArray, blocks);
        QFETCH(QString, expected);
        const core::Model m = parseProject(R"({"format": "endstop-project", "formatVersion": 1, "blocks": [)" + blocks + "]}",
                                           "range.endstop", blocks::registry());
        const QStringList errors = test::buildErrors(m);
        QVERIFY2(!errors.isEmpty(), "built without error");
        QVERIFY2(errors.front().startsWith(expected), qPrintable(errors.join('\n')));
        QVERIFY(core::hasErrors(core::validateModel(m, blocks::registry())));
    }

    // An open input is a wiring fact of the model, found when building, naming block and port.
    void openInputWhenBuilding() {
        const core::Model m = test::modelFromJson(R"({"blocks":[
            {"name":"m","type":"translational.mass"}, {"name":"fs","type":"translational.force_source"},
            {"name":"g","type":"translational.reference"}],
            "connections":[["fs.R","m.M"],["fs.C","g.R"]]})");
        const QStringList errors = test::buildErrors(m);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.front().startsWith("block 'fs', port 'S': input signal port has no source"), qPrintable(errors.front()));
    }

    // Parameter text as the CLI, the dialog and the files give it.
    void parameterText_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");   // toString of the SI value, or "error: ..." fragment
        QTest::newRow("unit") << "translational.mass" << "mass" << "250 g" << "0.25";
        QTest::newRow("bare") << "translational.mass" << "mass" << "3" << "3";
        QTest::newRow("vector with unit") << "signal.table" << "times" << "[0 10 20] ms" << "[0 0.01 0.02]";
        QTest::newRow("vector with commas") << "signal.table" << "times" << "[0, 1; 2]" << "[0 1 2]";
        QTest::newRow("empty vector") << "signal.table" << "values" << "[]" << "[]";
        QTest::newRow("choice") << "signal.table" << "interpolation" << "hold" << "hold";
        QTest::newRow("signal value in any unit") << "signal.constant" << "value" << "5 kN" << "5000";
        QTest::newRow("text") << "signal.sum" << "signs" << "+-+" << "+-+";
        QTest::newRow("vector without brackets") << "signal.table" << "times" << "0 1 2" << "error: expected a vector";
        QTest::newRow("vector wrong unit") << "signal.table" << "times" << "[0 1] m" << "error: 'm'";
        QTest::newRow("bad choice") << "signal.table" << "interpolation" << "spline" << "error: expected one of: linear, hold";
        QTest::newRow("dimension") << "translational.mass" << "mass" << "3 N" << "error: mass: unit 'N'";
    }
    void parameterText() {
        QFETCH(QString, type);
        QFETCH(QString, key);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const auto proto = blocks::registry().prototype(type.toStdString());
        const core::ParamDesc* desc = nullptr;
        for (const core::ParamDesc& d : proto->params())
            if (d.key == key.toStdString()) desc = &d;
        QVERIFY(desc);
        QString got;
        try {
            got = QString::fromStdString(core::toString(core::io::parseParameterText(text.toStdString(), *desc)));
        } catch (const core::FileFormatError& e) {
            got = QString("error: ") + e.what();
        }
        if (expected.startsWith("error: ")) QVERIFY2(got.startsWith("error: ") && got.contains(expected.mid(7)), qPrintable(got));
        else QCOMPARE(got, expected);
    }
};

QTEST_GUILESS_MAIN(TestProjectFile)
#include "tst_project_file.moc"
