// SPDX-License-Identifier: GPL-3.0-or-later
// Project files (docs/file-format.md): every bad input refused with a message naming the file, the JSON
// path and what was expected; what only the network shows (ranges, open inputs) reported when the model is built.
#include "support/test_support.hpp"

#include "core/graph/topology.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace endstop;
using core::io::loadProject;
using core::io::parseProject;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(path));
    return path;
}

QString loadError(const QString& path) {
    try {
        loadProject(path, blocks::registry());
    } catch (const core::FileFormatError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}   // namespace

class TestProjectFileErrors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // an older formatVersion goes through the migration hook and loads
    // Version 1 is the first: 0, negative, fractional and huge versions are refused, range-checked
    // as doubles (1e300 once wrapped to an int that passed), and so are huge type versions.
    void versionsOutOfRange_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        const QByteArray mass = R"("blocks":[{"name":"m","type":"translational.mass","typeVersion":TV}])";
        auto file = [&](const char* fv, const char* tv = "1") {
            return QByteArray(R"({"format":"endstop-project","formatVersion":)") + fv + "," +
                   QByteArray(mass).replace("TV", tv) + "}";
        };
        QTest::newRow("0") << file("0") << "formatVersion: expected a whole number >= 1";
        QTest::newRow("-1") << file("-1") << "formatVersion: expected a whole number >= 1";
        QTest::newRow("1.5") << file("1.5") << "formatVersion: expected a whole number >= 1";
        QTest::newRow("1e300") << file("1e300") << "formatVersion: version 1e+300 is newer than this program supports";
        QTest::newRow("2147483648") << file("2147483648") << "newer than this program supports";
        QTest::newRow("typeVersion 1e300")
            << file("1", "1e300") << "blocks[0].typeVersion: block \"m\": type version 1e+300 is newer";
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
        QTest::newRow("malformed JSON")
            << QByteArray("{\n  \"format\": \"endstop-project\",\n  \"blocks\": [ {\"name\": \"m\" \"type\": 1} ]\n}")
            << QStringList{":3:", "malformed JSON"};
        QTest::newRow("malformed after non-ASCII")
            << QByteArray(
                   "{\"format\": \"endstop-project\",\n\"plots\": [{\"title\": \"Schwungrad \xc3\xbc\xc3\xbc\", ]}")
            << QStringList{":2:39:", "malformed JSON"};   // "]" at column 38, as for ASCII
        QTest::newRow("truncated") << QByteArray("{\"format\": \"endstop-project\",\n\"blocks\": [")
                                   << QStringList{":2:", "malformed JSON"};
        QTest::newRow("not an object") << QByteArray("[1, 2]") << QStringList{"expected a JSON object"};
        QTest::newRow("not a project") << QByteArray(R"({"format": "something", "formatVersion": 1})")
                                       << QStringList{": format:", "endstop-project"};
        QTest::newRow("newer formatVersion") << QByteArray(R"({"format": "endstop-project", "formatVersion": 7})")
                                             << QStringList{": formatVersion:", "version 7 is newer", "(2)"};
        QTest::newRow("formatVersion not a number")
            << QByteArray(R"({"format": "endstop-project", "formatVersion": "1"})")
            << QStringList{": formatVersion:", "expected a whole number >= 1"};
        QTest::newRow("unknown top-level key")
            << "{" + head + R"("blocs": []})" << QStringList{": blocs:", "unknown key"};
        QTest::newRow("unknown block type")
            << file(mass + R"(, {"name": "s", "type": "translational.sprung"})")
            << QStringList{": blocks[1].type:", "unknown block type \"translational.sprung\"", "\"s\""};
        QTest::newRow("newer typeVersion") << file(R"({"name": "m", "type": "translational.mass", "typeVersion": 3})")
                                           << QStringList{": blocks[0].typeVersion:", "\"m\"", "version 3 is newer"};
        QTest::newRow("fractional typeVersion")
            << file(R"({"name": "m", "type": "translational.mass", "typeVersion": 1.5})")
            << QStringList{": blocks[0].typeVersion:", "whole number"};
        QTest::newRow("unknown block key") << file(R"({"name": "m", "type": "translational.mass", "colour": 1})")
                                           << QStringList{": blocks[0].colour:", "unknown key"};
        QTest::newRow("duplicate block names")
            << file(mass + ", " + ground + R"(, {"name": "m", "type": "translational.spring"})")
            << QStringList{": blocks[2].name:", "duplicate block name \"m\""};
        QTest::newRow("invalid block name") << file(R"({"name": "mass 1", "type": "translational.mass"})")
                                            << QStringList{": blocks[0].name:", "expected a block name", "\"mass 1\""};
        QTest::newRow("missing block name")
            << file(R"({"type": "translational.mass"})") << QStringList{": blocks[0].name:", "expected a block name"};
        QTest::newRow("unknown parameter key")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mas": 1}})")
            << QStringList{": blocks[0].parameters.mas:", "\"m\"", "translational.mass", "no parameter \"mas\""};
        QTest::newRow("wrong unit dimension")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "10 mm"}})")
            << QStringList{": blocks[0].parameters.mass:", "\"m\"", "'mm'", "expected kg"};
        QTest::newRow("wrong unit, rotational")
            << file(R"({"name": "k", "type": "rotational.spring", "parameters": {"stiffness": "5 N/m"}})")
            << QStringList{": blocks[0].parameters.stiffness:", "'N/m'", "N*m/rad"};
        QTest::newRow("unknown unit")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "2 slug"}})")
            << QStringList{": blocks[0].parameters.mass:", "unknown unit 'slug'"};
        QTest::newRow("NaN as a string")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "nan"}})")
            << QStringList{": blocks[0].parameters.mass:", "not a finite number"};
        QTest::newRow("inf as a string")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"initial_velocity": "inf m/s"}})")
            << QStringList{": blocks[0].parameters.initial_velocity:", "not a finite number"};
        QTest::newRow("-Infinity as a string")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "-Infinity"}})")
            << QStringList{": blocks[0].parameters.mass:", "not a finite number"};
        QTest::newRow("NaN in a vector")
            << file(R"({"name": "t", "type": "signal.table", "parameters": {"values": [0, "nan"]}})")
            << QStringList{": blocks[0].parameters.values:", "not a finite number"};
        QTest::newRow("overflowing number")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": 1e999}})")
            << QStringList{":1:", "malformed JSON", "illegal number"};
        QTest::newRow("number of wrong type")
            << file(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": true}})")
            << QStringList{": blocks[0].parameters.mass:", "expected a number"};
        QTest::newRow("vector of wrong type")
            << file(R"({"name": "t", "type": "signal.table", "parameters": {"times": [0, null]}})")
            << QStringList{": blocks[0].parameters.times:", "expected numbers"};
        QTest::newRow("unknown choice")
            << file(R"({"name": "t", "type": "signal.table", "parameters": {"interpolation": "cubic"}})")
            << QStringList{": blocks[0].parameters.interpolation:", "\"cubic\"", "linear, hold"};
        QTest::newRow("bad rotation") << file(R"({"name": "m", "type": "translational.mass", "ui": {"rotation": 45}})")
                                      << QStringList{": blocks[0].ui.rotation:", "multiple of 90"};
        QTest::newRow("bad position") << file(R"({"name": "m", "type": "translational.mass", "ui": {"pos": [1]}})")
                                      << QStringList{": blocks[0].ui.pos:", "[x, y]"};
        QTest::newRow("display unit of wrong dimension")
            << file(R"({"name": "m", "type": "translational.mass", "ui": {"units": {"mass": "mm"}}})")
            << QStringList{": blocks[0].ui.units.mass:", "'mm'", "expected kg"};
        QTest::newRow("unknown display unit")
            << file(R"({"name": "m", "type": "translational.mass", "ui": {"units": {"mass": "slug"}}})")
            << QStringList{": blocks[0].ui.units.mass:", "unknown unit 'slug'"};
        QTest::newRow("display unit of no parameter")
            << file(R"({"name": "m", "type": "translational.mass", "ui": {"units": {"weight": "g"}}})")
            << QStringList{": blocks[0].ui.units.weight:", "no numeric parameter \"weight\""};
        QTest::newRow("unknown setting") << "{" + head + R"("simulation": {"stoptime": 1}})"
                                         << QStringList{": simulation.stoptime:", "unknown setting"};
        QTest::newRow("bad linear solver") << "{" + head + R"("simulation": {"linear_solver": "lu"}})"
                                           << QStringList{": simulation.linear_solver:", "\"klu\""};
        QTest::newRow("reduce not a boolean") << "{" + head + R"("simulation": {"reduce": "on"}})"
                                              << QStringList{": simulation.reduce:", "expected true or false"};
        QTest::newRow("setting not a number") << "{" + head + R"("simulation": {"stop_time": "2 s"}})"
                                              << QStringList{": simulation.stop_time:", "expected a number"};
        QTest::newRow("connection not a pair")
            << file(mass, R"([["m.M"]])")
            << QStringList{": connections[0]:", R"(expected ["block.port", "block.port"])"};
        QTest::newRow("connection end malformed") << file(mass + ", " + ground, R"([["m.M", "g"]])")
                                                  << QStringList{": connections[0][1]:", "expected \"block.port\""};
        QTest::newRow("connection to unknown block")
            << file(mass, R"([["m.M", "ground.R"]])")
            << QStringList{": connections[0][1]:", "no block named \"ground\""};
        QTest::newRow("unknown port") << file(mass + ", " + ground, R"([["m.M", "g.R"], ["g.X", "m.M"]])")
                                      << QStringList{": connections[1][0]:", "\"g\"", "translational.reference",
                                                     "no port \"X\"", "ports: R"};
        QTest::newRow("hidden port")
            << file(
                   R"({"name": "s", "type": "signal.sum", "parameters": {"signs": "++"}}, {"name": "c", "type": "signal.constant"})",
                   R"([["c.y", "s.u3"]])")
            << QStringList{": connections[0][1]:", "no port \"u3\"", "ports: u1, u2, y"};
        // blocks of one type whose numbers differ share a port list, those whose choices differ do not
        QTest::newRow("port hidden by a choice beside a block showing it")
            << file(R"({"name": "a", "type": "translational.stiction", "parameters": {"limits_from": "signals",)"
                    R"( "breakaway_positive": 10}}, {"name": "b", "type": "translational.stiction",)"
                    R"( "parameters": {"limits_from": "parameters", "breakaway_positive": 20}},)"
                    R"( {"name": "c", "type": "signal.constant"})",
                    R"([["c.y", "a.FK"], ["c.y", "b.FK"]])")
            << QStringList{": connections[1][1]:", "\"b\"", "no port \"FK\"", "ports: R, C"};
        QTest::newRow("wire between domains")
            << file(mass + R"(, {"name": "J", "type": "rotational.inertia"})", R"([["m.M", "J.I"]])")
            << QStringList{": connections[0]:", "m.M (translational)", "J.I (rotational)", "different domains"};
        QTest::newRow("signal to conserving port")
            << file(mass + R"(, {"name": "c", "type": "signal.constant"})", R"([["c.y", "m.M"]])")
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
        for (const QString& fragment : expected)
            QVERIFY2(message.contains(fragment), qPrintable(message + "\n   lacks: " + fragment));
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
        QTest::newRow("negative mass")
            << QByteArray(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": -1}})")
            << "block 'm', parameter 'mass': must be > 0 kg, got -1 kg";
        QTest::newRow("zero mass with unit")
            << QByteArray(R"({"name": "m", "type": "translational.mass", "parameters": {"mass": "0 g"}})")
            << "block 'm', parameter 'mass': must be > 0 kg, got 0 kg";
        QTest::newRow("negative stiffness")
            << QByteArray(R"({"name": "k", "type": "rotational.spring", "parameters": {"stiffness": "-1 N*m/deg"}})")
            << "block 'k', parameter 'stiffness': must be >= 0 N*m/rad";
        QTest::newRow("negative damping")
            << QByteArray(R"({"name": "d", "type": "translational.damper", "parameters": {"damping": -3}})")
            << "block 'd', parameter 'damping': must be >= 0 N*s/m";
        QTest::newRow("zero radius")
            << QByteArray(R"({"name": "w", "type": "mechanical.wheel_axle", "parameters": {"radius": 0}})")
            << "block 'w', parameter 'radius': must be > 0 m";
        QTest::newRow("pulse width over period")
            << QByteArray(R"({"name": "p", "type": "signal.pulse", "parameters": {"width": 2, "period": 1}})")
            << "block 'p', parameter 'width': must be <= period";
    }
    void rangeErrorsWhenBuilding() {
        QFETCH(QByteArray, blocks);
        QFETCH(QString, expected);
        const core::model::Model m =
            parseProject(R"({"format": "endstop-project", "formatVersion": 1, "blocks": [)" + blocks + "]}",
                         "range.endstop", blocks::registry());
        const QStringList errors = test::buildErrors(m);
        QVERIFY2(!errors.isEmpty(), "built without error");
        QVERIFY2(errors.front().startsWith(expected), qPrintable(errors.join('\n')));
        QVERIFY(core::hasErrors(core::simulation::validateModel(m, blocks::registry())));
    }

    // An open input is a wiring fact of the model, found when building, naming block and port.
    void openInputWhenBuilding() {
        const core::model::Model m = test::modelFromJson(R"({"blocks":[
            {"name":"m","type":"translational.mass"}, {"name":"fs","type":"translational.force_source"},
            {"name":"g","type":"translational.reference"}],
            "connections":[["fs.R","m.M"],["fs.C","g.R"]]})");
        const QStringList errors = test::buildErrors(m);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.front().startsWith("block 'fs', port 'S': input signal port has no source"),
                 qPrintable(errors.front()));
    }
};

QTEST_GUILESS_MAIN(TestProjectFileErrors)
#include "tst_project_file_errors.moc"
