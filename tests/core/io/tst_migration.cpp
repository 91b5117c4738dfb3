// SPDX-License-Identifier: GPL-3.0-or-later
// formatVersion 1 -> 2 (core/io/migrate.hpp) on fixtures written by version 1: quantities in
// version 1's unit grammar ("3 1/s", "0.05 N m", "60 rpm") become the SI numbers version 1 gave
// them, the file is written back as version 2, and the model runs exactly as before.
#include "core/io/migrate.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "tests/support/test_support.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <cmath>
#include <numbers>

using namespace endstop;

namespace {

QString fixturePath(const QString& name) { return test::sourcePath("tests/core/io/fixtures/" + name); }

double param(const core::model::Model& m, const std::string& block, const std::string& key) {
    return std::get<double>(m.find(block)->params.at(key));
}

QByteArray asVersion2(QByteArray bytes) { return bytes.replace("\"formatVersion\": 1", "\"formatVersion\": 2"); }

}   // namespace

class TestMigration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void version1SpellingsBecomeSINumbers() {
        const core::model::Model m =
            core::io::loadProject(fixturePath("v1_unit_spellings.endstop"), blocks::registry());
        QCOMPARE(param(m, "drive", "frequency"), 3.0);                            // "3 1/s"
        QCOMPARE(param(m, "drive", "amplitude"), 0.05);                           // "0.05 N m"
        QCOMPARE(param(m, "rotor", "inertia"), 40e-3 * 1e-4);                     // "40 g*cm^2"
        QCOMPARE(param(m, "rotor", "initial_velocity"), 2 * std::numbers::pi);    // "60 rpm"
        QCOMPARE(param(m, "shaft", "stiffness"), 0.5 * 180 / std::numbers::pi);   // "0.5 N·m/deg"
        QVERIFY(!m.hierarchical());                                               // nothing left to evaluate
    }

    void version2ReadsTheSameQuantities() {   // a quantity is tried before an expression
        const QByteArray v2 = asVersion2(test::readBytes(fixturePath("v1_unit_spellings.endstop")));
        const core::model::Model a = core::io::parseProject(v2, "v2.endstop", blocks::registry());
        const core::model::Model b =
            core::io::loadProject(fixturePath("v1_unit_spellings.endstop"), blocks::registry());
        QCOMPARE(a.blocks(), b.blocks());
    }

    void writtenBackAsVersion2() {
        const core::model::Model m =
            core::io::loadProject(fixturePath("v1_unit_spellings.endstop"), blocks::registry());
        const QByteArray saved = core::io::serializeProject(m);
        const QJsonObject root = QJsonDocument::fromJson(saved).object();
        QCOMPARE(root["formatVersion"].toInt(), 2);
        QCOMPARE(root["blocks"].toArray()[0].toObject()["parameters"].toObject()["frequency"].toDouble(), 3.0);
        const core::model::Model again = core::io::parseProject(saved, "again.endstop", blocks::registry());
        QCOMPARE(again.blocks(), m.blocks());
        QCOMPARE(again.connections(), m.connections());
        QCOMPARE(core::io::serializeProject(again), saved);
    }

    void migrationStepOnTheDocument() {
        const QJsonObject v1 =
            QJsonDocument::fromJson(test::readBytes(fixturePath("v1_rattling_mass.endstop"))).object();
        const QJsonObject v2 = core::io::migrateFormat(v1, 1, blocks::registry());
        QCOMPARE(v2["formatVersion"].toInt(), 2);
        const QJsonObject stops = v2["blocks"].toArray()[3].toObject()["parameters"].toObject();
        QCOMPARE(stops["upper_bound"].toDouble(), 0.005);         // was "5 mm"
        QCOMPARE(stops["model"].toString(), QString("smooth"));   // choices untouched
        QCOMPARE(v2["connections"], v1["connections"]);
        QCOMPARE(v2["plots"], v1["plots"]);
        // a value the step cannot convert stays for the reader to report with its path
        QJsonObject bad = v1;
        QJsonArray blocks = bad["blocks"].toArray();
        QJsonObject slider = blocks[2].toObject();
        slider["parameters"] = QJsonObject{{"mass", "0.5 stone"}};
        blocks[2] = slider;
        bad["blocks"] = blocks;
        QCOMPARE(core::io::migrateFormat(bad, 1, blocks::registry())["blocks"]
                     .toArray()[2]
                     .toObject()["parameters"]
                     .toObject()["mass"]
                     .toString(),
                 QString("0.5 stone"));
        try {
            (void)core::io::parseProject(QJsonDocument(bad).toJson(), "bad.endstop", blocks::registry());
            QFAIL("loaded");
        } catch (const core::FileFormatError& e) {
            QVERIFY2(QString(e.what()).contains("bad.endstop: blocks[2].parameters.mass"), e.what());
        }
    }

    void version1ResultsUnchanged() {   // the migrated model, saved as version 2, runs exactly as before
        const core::model::Model v1 =
            core::io::loadProject(fixturePath("v1_rattling_mass.endstop"), blocks::registry());
        const core::model::Model v2 =
            core::io::parseProject(core::io::serializeProject(v1), "v2.endstop", blocks::registry());
        const auto a = test::run(v1), b = test::run(v2);
        QVERIFY(test::last(a, "stops.impacts") > 0);
        QCOMPARE(a.rows(), b.rows());
        for (const core::Column& c : a.columns()) QVERIFY2(a.values(c.name) == b.values(c.name), c.name.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMigration)
#include "tst_migration.moc"
