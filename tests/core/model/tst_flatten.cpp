// SPDX-License-Identifier: GPL-3.0-or-later
// Named parameters, expressions and subsystems (core/model/flatten.hpp, docs/file-format.md): a
// model written with them gives exactly the results of the same model written flat, in both
// domains and through two levels of nesting; --set reaches model, mask and inner parameters; every
// bad input names the file, the JSON path and what is wrong.
#include "core/io/overrides.hpp"
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"
#include "tests/core/model/flatten_bad_files.hpp"
#include "tests/support/test_support.hpp"

#include <QtTest>

using namespace endstop;
using core::model::Model;

namespace {

Model fixture(const QString& name) {
    return core::io::loadProject(test::sourcePath("tests/core/model/fixtures/" + name), blocks::registry());
}

double param(const Model& flat, const std::string& block, const std::string& key) {
    const core::model::BlockSpec* b = flat.find(block);
    if (!b) throw std::runtime_error("no block " + block);
    return std::get<double>(b->params.at(key));
}

// The flat column for a path column, by the fixture's naming ("p.s1.spring.x" -> "s1spring.x").
using Renames = std::vector<std::pair<std::string, std::string>>;
std::string renamed(std::string column, const Renames& renames) {
    for (const auto& [from, to] : renames)
        if (column.starts_with(from)) return to + column.substr(from.size());
    return column;
}

// Bit for bit: the same equations in the same order give the same numbers.
void compareExactly(const core::MemorySink& nested, const core::MemorySink& flat, const Renames& renames) {
    QCOMPARE(nested.rows(), flat.rows());
    QCOMPARE(nested.columns().size(), flat.columns().size());
    QVERIFY(nested.rows() > 100);
    for (const core::Column& c : nested.columns()) {
        const std::string other = renamed(c.name, renames);
        QVERIFY2(nested.values(c.name) == flat.values(other), (c.name + " differs from " + other).c_str());
    }
    QCOMPARE(nested.events().size(), flat.events().size());
    for (std::size_t i = 0; i < nested.events().size(); ++i) {
        QCOMPARE(nested.events()[i].time, flat.events()[i].time);
        QCOMPARE(QString::fromStdString(renamed(nested.events()[i].block + ".", renames)),
                 QString::fromStdString(flat.events()[i].block + "."));
    }
}

QString loadError(const std::string& json) {
    try {
        (void)core::io::parseProject(QByteArray::fromStdString(json), "bad.endstop", blocks::registry());
    } catch (const core::Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}   // namespace

class TestFlatten : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void expressionsFollowScopes() {
        const Model m = fixture("translational_nested.endstop");
        QVERIFY(m.hierarchical());
        const Model flat = core::model::flatten(m, blocks::registry());
        QVERIFY(!flat.hierarchical());
        // k_stage = 2*k_base is defined before k_base: evaluation follows dependencies
        QCOMPARE(param(flat, "p.s1.spring", "stiffness"), 2e4);     // kk = k_stage, k = kk
        QCOMPARE(param(flat, "p.s2.spring", "stiffness"), 1e4);     // k = kk/2
        QCOMPARE(param(flat, "p.s1.stop", "upper_bound"), 0.005);   // g = gap, a model parameter
        QCOMPARE(param(flat, "p.s1.stop", "lower_bound"), -0.005);
        QCOMPARE(param(flat, "p.s2.stop", "upper_bound"), 0.001);   // the mask's default
        QCOMPARE(param(flat, "p.mid", "mass"), 0.5);
        QVERIFY(flat.find("p.s1.spring") && !flat.find("p") && !flat.find("p.s1"));
    }

    void translationalNestedEqualsFlat() {
        const auto nested = test::run(fixture("translational_nested.endstop"));
        const auto flat = test::run(fixture("translational_flat.endstop"));
        compareExactly(nested, flat, {{"p.s1.", "s1"}, {"p.s2.", "s2"}, {"p.mid", "mid"}});
        QVERIFY(test::last(nested, "p.s2.stop.impacts") > 10);   // the stops are really hit
    }

    void rotationalNestedEqualsFlat() {   // signal ports in and out of a subsystem, too
        const auto nested = test::run(fixture("rotational_nested.endstop"));
        const auto flat = test::run(fixture("rotational_flat.endstop"));
        compareExactly(nested, flat, {{"train.first.", "first_"}, {"train.second.", "second_"}, {"train.", ""}});
        QVERIFY(test::last(nested, "train.first.mesh.impacts") > 10);
    }

    void setReachesEveryLevel_data() {
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("block");
        QTest::addColumn<QString>("key");
        QTest::addColumn<double>("expected");
        QTest::newRow("model parameter") << "k_base=5e3 N/m"
                                         << "p.s1.spring"
                                         << "stiffness" << 1e4;
        QTest::newRow("model parameter as expression") << "gap=2*1 mm"
                                                       << "p.s1.stop"
                                                       << "upper_bound" << 0.002;
        QTest::newRow("instance mask") << "p.kk=3e4"
                                       << "p.s2.spring"
                                       << "stiffness" << 1.5e4;
        QTest::newRow("nested mask") << "p.s2.g=2 mm"
                                     << "p.s2.stop"
                                     << "lower_bound" << -0.002;
        QTest::newRow("nested mask as expression") << "p.s1.k=3*k_base"
                                                   << "p.s1.spring"
                                                   << "stiffness" << 3e4;
        QTest::newRow("block inside, this instance only") << "p.s1.spring.stiffness=7e3"
                                                          << "p.s1.spring"
                                                          << "stiffness" << 7e3;
        QTest::newRow("other instance untouched") << "p.s1.spring.stiffness=7e3"
                                                  << "p.s2.spring"
                                                  << "stiffness" << 1e4;
    }
    void setReachesEveryLevel() {
        QFETCH(QString, assignment);
        QFETCH(QString, block);
        QFETCH(QString, key);
        QFETCH(double, expected);
        Model m = fixture("translational_nested.endstop");
        m.apply(core::io::parseAssignment(m, blocks::registry(), assignment.toStdString()));
        const Model flat = core::model::flatten(m, blocks::registry());
        QCOMPARE(param(flat, block.toStdString(), key.toStdString()), expected);
    }

    void badAssignments_data() {
        QTest::addColumn<QString>("assignment");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown model parameter") << "k_bas=1"
                                                 << "parameters: k_stage, k_base, gap";
        QTest::newRow("unknown mask parameter") << "p.zz=1"
                                                << "subsystem Pair) has no parameter 'zz' (parameters: kk)";
        QTest::newRow("unknown inner block") << "p.s1.nope.x=1"
                                             << "subsystem Stage (block 'p.s1') has no block 'nope'";
        QTest::newRow("unknown inner key") << "p.s1.spring.nope=1"
                                           << "block 'p.s1.spring' (translational.spring) has no parameter 'nope'";
        QTest::newRow("mask dimension") << "p.kk=3 kg"
                                        << "expected kg/s^2";
    }
    void badAssignments() {
        QFETCH(QString, assignment);
        QFETCH(QString, expected);
        const Model m = fixture("translational_nested.endstop");
        try {
            (void)core::io::parseAssignment(m, blocks::registry(), assignment.toStdString());
            QFAIL("accepted");
        } catch (const core::ModelError& e) {
            QVERIFY2(QString(e.what()).contains(expected), e.what());
        }
    }

    void dimensionChecksAtFlattening() {
        Model m = fixture("translational_nested.endstop");
        m.apply(core::io::parseAssignment(m, blocks::registry(), "k_base=2*gap"));   // a length for a stiffness
        try {
            (void)core::model::flatten(m, blocks::registry());
            QFAIL("flattened");
        } catch (const core::ModelError& e) {
            const QString what = e.what();
            QVERIFY2(what.contains("block 'p', parameter 'kk'") && what.contains("has dimension m, expected kg/s^2"),
                     e.what());
        }
    }

    void badFiles_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QStringList>("fragments");
        for (const test::BadFile& f : test::badFiles()) QTest::newRow(f.name) << f.json << f.fragments;
    }
    void badFiles() {
        QFETCH(QString, json);
        QFETCH(QStringList, fragments);
        const QString message = loadError(json.toStdString());
        QVERIFY2(!message.isEmpty(), "loaded without error");
        for (const QString& f : fragments) QVERIFY2(message.contains(f), qPrintable(message + "\n  lacks: " + f));
    }

    void savesExpressionsAndSubsystemsStably() {
        const Model m = fixture("rotational_nested.endstop");
        const QByteArray once = core::io::serializeProject(m);
        const Model again = core::io::parseProject(once, "again.endstop", blocks::registry());
        QCOMPARE(core::io::serializeProject(again), once);   // saving twice gives identical bytes
        QVERIFY(once.contains("\"formatVersion\": 2"));
        QVERIFY(once.contains("\"upper_bound\": \"play/2\""));   // expressions kept as written
        QVERIFY(once.contains("\"subsystem:Stage\""));
        QVERIFY(once.contains("\"domain\": \"signal_out\""));
        QCOMPARE(again.parameters(), m.parameters());
        const Model a = core::model::flatten(m, blocks::registry()),
                    b = core::model::flatten(again, blocks::registry());
        QCOMPARE(a.blocks(), b.blocks());
        QCOMPARE(a.connections(), b.connections());
    }

    void editsInsideADefinitionAreUndoable() {
        Model m = fixture("translational_nested.endstop");
        const QByteArray before = core::io::serializeProject(m);
        const core::model::Edit inverse = m.apply(
            core::model::InSubsystem{"Stage", {core::model::SetParameter{"spring", "stiffness", std::string("3*k")}}});
        const Model flat = core::model::flatten(m, blocks::registry());
        QCOMPARE(param(flat, "p.s1.spring", "stiffness"), 6e4);   // every instance follows its definition
        QCOMPARE(param(flat, "p.s2.spring", "stiffness"), 3e4);   // k = kk/2 there
        m.apply(inverse);
        QCOMPARE(core::io::serializeProject(m), before);
        QVERIFY_THROWS_EXCEPTION(core::ModelError, m.apply(core::model::RemoveSubsystem{"Stage"}));   // in use by Pair
    }
};

QTEST_GUILESS_MAIN(TestFlatten)
#include "tst_flatten.moc"
