// SPDX-License-Identifier: GPL-3.0-or-later
// Project files (docs/file-format.md): deterministic round trip, SI conversion of values with units,
// defaults, atomic saving and parameter text. Bad input is refused in tst_project_file_errors.cpp.
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include "core/graph/topology.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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

double param(const core::model::Model& m, const char* block, const char* key) {
    return std::get<double>(m.find(block)->params.at(key));
}

// numbers computed two ways agree to a few ulps
const endstop::test::Relative kClose = endstop::test::relative(1e-15);

}   // namespace

class TestProjectFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data() {
        QTest::addColumn<QString>("file");   // an example, or "" for kRich
        QTest::newRow("rich") << "";
        for (const QString& f :
             QDir(test::sourcePath("resources/examples")).entryList({"*.endstop"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << f;
    }
    void roundTrip() {
        QFETCH(QString, file);
        const core::model::Model loaded =
            file.isEmpty() ? parseProject(kRich, "rich.endstop", blocks::registry()) : test::loadExample(file);
        const QByteArray first = serializeProject(loaded);
        const core::model::Model again = parseProject(first, "again.endstop", blocks::registry());
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
        core::model::Model m = parseProject(kRich, "rich.endstop", blocks::registry());
        // awkward doubles survive exactly
        m.apply(core::model::SetParameter{"one", "value", core::ParamValue{0.1 + 0.2}});
        m.apply(core::model::SetParameter{"J", "initial_position", core::ParamValue{1.0 / 3.0}});
        m.apply(core::model::SetParameter{"k", "stiffness", core::ParamValue{1e20}});
        m.apply(core::model::SetParameter{"d", "damping", core::ParamValue{5e-324}});
        const QString a = dir.filePath("a.endstop"), b = dir.filePath("b.endstop");
        saveProject(m, a);
        saveProject(m, a);   // over itself
        saveProject(loadProject(a, blocks::registry()), b);
        QCOMPARE(readFile(b), readFile(a));
        QCOMPARE(readFile(a), serializeProject(m));
        const core::model::Model back = loadProject(b, blocks::registry());
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
        const core::model::Model m = parseProject(kRich, "rich.endstop", blocks::registry());
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
        QCOMPARE(m.simulation().linearSolver, core::model::LinearSolver::Dense);
        QCOMPARE(m.find("table")->ui.rotation, 270);
        QVERIFY(m.find("table")->ui.flipped);
        QCOMPARE(m.find("table")->ui.y, -20.5);
        QCOMPARE(m.find("table")->ui.displayUnits.at("times"), std::string("ms"));
        QCOMPARE(m.find("sum")->typeVersion, 1);
        QCOMPARE(m.plots().size(), std::size_t(2));
        QCOMPARE(m.plots()[0].signals.size(), std::size_t(2));
        // and the model runs
        QVERIFY(!core::hasErrors(core::simulation::validateModel(m, blocks::registry())));
    }

    // "reduce" in the settings: on when absent, written only when off (a file without it reads as
    // before), and the run follows it unless the caller's options say otherwise
    void reduceSetting() {
        const core::model::Model plain = parseProject(kRich, "rich.endstop", blocks::registry());
        QVERIFY(plain.simulation().reduce);
        QVERIFY(!serializeProject(plain).contains("reduce"));
        QByteArray text(kRich);
        text.replace(R"("linear_solver": "dense")", R"("linear_solver": "dense", "reduce": false)");
        const core::model::Model m = parseProject(text, "drawn.endstop", blocks::registry());
        QVERIFY(!m.simulation().reduce);
        const QJsonObject settings = QJsonDocument::fromJson(serializeProject(m)).object()["simulation"].toObject();
        QCOMPARE(settings["reduce"].toBool(true), false);
        QVERIFY(parseProject(serializeProject(m), "again.endstop", blocks::registry()).simulation() == m.simulation());
        core::simulation::SimulationOptions o;
        o.stopTime = 0.05;
        const core::RunStats drawn = test::run(m, o).stats();
        QCOMPARE(drawn.unknowns, drawn.unknownsBefore);
        o.reduce = true;
        const core::RunStats reduced = test::run(m, o).stats();
        QVERIFY2(reduced.unknowns < reduced.unknownsBefore,
                 qPrintable(QString("%1 of %2 unknowns").arg(reduced.unknowns).arg(reduced.unknownsBefore)));
        QCOMPARE(drawn.unknownsBefore, reduced.unknownsBefore);
        o.reduce.reset();
        QCOMPARE(test::run(plain, o).stats().unknowns, reduced.unknowns);
    }

    // a minimal file: omitted settings and parameters take their defaults
    void defaults() {
        const core::model::Model m = parseProject(R"({"format":"endstop-project","formatVersion":1,
            "blocks":[{"name":"m","type":"translational.mass"}]})",
                                                  "min.endstop", blocks::registry());
        QVERIFY(m.simulation() == core::model::SimulationSettings{});
        QVERIFY(m.find("m")->params.empty());
        QVERIFY(m.connections().empty());
        QVERIFY(m.plots().empty());
    }

    void atomicSave() {
        QTemporaryDir dir;
        const core::model::Model m = parseProject(kRich, "rich.endstop", blocks::registry());
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
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{"plain.txt"});
        // a good save replaces the old file whole and leaves no temporary behind
        const QString target = writeFile(dir, "model.endstop", "old contents");
        saveProject(m, target);
        QCOMPARE(readFile(target), serializeProject(m));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 (QStringList{"model.endstop", "plain.txt"}));
    }

    // Parameter text as the CLI, the dialog and the files give it.
    void parameterText_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");   // toString of the SI value, or "error: ..." fragment
        QTest::newRow("unit") << "translational.mass"
                              << "mass"
                              << "250 g"
                              << "0.25";
        QTest::newRow("bare") << "translational.mass"
                              << "mass"
                              << "3"
                              << "3";
        QTest::newRow("vector with unit") << "signal.table"
                                          << "times"
                                          << "[0 10 20] ms"
                                          << "[0 0.01 0.02]";
        QTest::newRow("vector with commas") << "signal.table"
                                            << "times"
                                            << "[0, 1; 2]"
                                            << "[0 1 2]";
        QTest::newRow("empty vector") << "signal.table"
                                      << "values"
                                      << "[]"
                                      << "[]";
        QTest::newRow("choice") << "signal.table"
                                << "interpolation"
                                << "hold"
                                << "hold";
        QTest::newRow("signal value in any unit") << "signal.constant"
                                                  << "value"
                                                  << "5 kN"
                                                  << "5000";
        QTest::newRow("text") << "signal.sum"
                              << "signs"
                              << "+-+"
                              << "+-+";
        QTest::newRow("vector without brackets") << "signal.table"
                                                 << "times"
                                                 << "0 1 2"
                                                 << "error: expected a vector";
        QTest::newRow("vector wrong unit") << "signal.table"
                                           << "times"
                                           << "[0 1] m"
                                           << "error: 'm'";
        QTest::newRow("bad choice") << "signal.table"
                                    << "interpolation"
                                    << "spline"
                                    << "error: expected one of: linear, hold";
        QTest::newRow("dimension") << "translational.mass"
                                   << "mass"
                                   << "3 N"
                                   << "error: mass: unit 'N'";
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
        if (expected.startsWith("error: "))
            QVERIFY2(got.startsWith("error: ") && got.contains(expected.mid(7)), qPrintable(got));
        else
            QCOMPARE(got, expected);
    }
};

QTEST_GUILESS_MAIN(TestProjectFile)
#include "tst_project_file.moc"
