// SPDX-License-Identifier: GPL-3.0-or-later
// Create Subsystem, Expand Subsystem and Make Unique (core/model/subsystem_ops.hpp): grouping gives
// the results of the flat model (conserving and signal ports, one port for several wires on one
// node), the inverse edit restores the exact original Model, expanding a two-level hierarchy gives
// its results back with the mask values substituted, and a unique copy is edited alone.
#include "core/io/project_file.hpp"
#include "core/errors.hpp"
#include "core/model/flatten.hpp"
#include "core/model/subsystem_ops.hpp"
#include "support/compare.hpp"
#include "tests/support/test_support.hpp"

#include <QtTest>

#include <cmath>
#include <map>

using namespace endstop;
using core::model::Model;

namespace {

// A force from a sine through a gain on m1; m1 -- k -- m2, m2 on a damper and a stop to ground.
// Grouped, the same network has its unknowns in another order, so its run takes other steps
// (rounding and root finding differ): the two runs agree to the solution's accuracy, and m2's
// acceleration at rtol 1e-6 only to 3e-4 of its range (against a run at rtol 1e-10). At rtol
// 1e-9 that is far inside the 1e-4 of compareResults, which a wrong grouping would exceed.
Model flatModel() {
    return test::modelFromJson(R"({ "formatVersion": 2,
      "simulation": { "stop_time": 0.4, "output_interval": 0.001, "relative_tolerance": 1e-9,
                      "absolute_tolerance": 1e-11 },
      "parameters": [ { "name": "k0", "value": "4e3 N/m" } ],
      "blocks": [ { "name": "src", "type": "signal.sine", "parameters": { "amplitude": 20, "frequency": "4 Hz" } },
                  { "name": "gain", "type": "signal.gain", "parameters": { "gain": 2 } },
                  { "name": "fs", "type": "translational.force_source" },
                  { "name": "m1", "type": "translational.mass", "parameters": { "mass": 1 } },
                  { "name": "k", "type": "translational.spring", "parameters": { "stiffness": "k0" } },
                  { "name": "m2", "type": "translational.mass", "parameters": { "mass": 0.5 } },
                  { "name": "d", "type": "translational.damper", "parameters": { "damping": 5 } },
                  { "name": "stop", "type": "translational.hard_stop", "parameters": { "upper_bound": 0.002, "lower_bound": -0.002 } },
                  { "name": "g", "type": "translational.reference" } ],
      "connections": [ ["src.y", "gain.u"], ["gain.y", "fs.S"], ["fs.R", "m1.M"], ["fs.C", "g.R"], ["m1.M", "k.R"],
                       ["k.C", "m2.M"], ["m2.M", "d.R"], ["d.C", "g.R"], ["m2.M", "stop.R"], ["stop.C", "g.R"] ],
      "plots": [ { "title": "x", "signals": ["m2.x", "k.f"] } ] })");
}

Model nestedFixture() {
    return core::io::loadProject(test::sourcePath("tests/core/model/fixtures/translational_nested.endstop"),
                                 blocks::registry());
}

QString difference(const Model& a, const Model& b) {
    if (a.blocks() != b.blocks()) return "blocks differ";
    if (a.connections().size() != b.connections().size()) return "connection counts differ";
    for (std::size_t i = 0; i < a.connections().size(); ++i)
        if (a.connections()[i].a != b.connections()[i].a || a.connections()[i].b != b.connections()[i].b)
            return QString("connection %1 differs").arg(i);
    if (a.plots() != b.plots()) return "plots differ";
    if (a.subsystems().size() != b.subsystems().size()) return "subsystem counts differ";
    return {};
}

// Every column of `flat` in `grouped` under its new name, equal within the solver's tolerance
void compareResults(const core::MemorySink& grouped, const core::MemorySink& flat,
                    const std::map<std::string, std::string>& moved) {
    QCOMPARE(grouped.rows(), flat.rows());
    QCOMPARE(grouped.columns().size(), flat.columns().size());
    for (const core::Column& c : flat.columns()) {
        const std::string block = c.name.substr(0, c.name.find('.'));
        const auto to = moved.find(block);
        const std::string name = to != moved.end() ? to->second + "." + c.name : c.name;
        const auto& a = flat.values(c.name);
        const auto& b = grouped.values(name);
        double scale = 1e-9, worst = 0;
        for (std::size_t i = 0; i < a.size(); ++i) scale = std::max(scale, std::abs(a[i]));
        for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
        QVERIFY2(worst <= 1e-4 * scale, (c.name + " differs from " + name + " by " + std::to_string(worst)).c_str());
    }
}

const core::model::SubsystemDef& onlyDef(const Model& m) { return m.subsystems().front(); }

}   // namespace

class TestSubsystemOps : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void groupSharesOnePortPerNode() {
        Model m = flatModel();
        const auto flat = test::run(m);
        m.apply(core::model::groupIntoSubsystem(m, blocks::registry(), {"k", "d", "stop"}, "Subsystem1", "subsystem1"));
        QCOMPARE(m.subsystems().size(), std::size_t(1));
        const core::model::SubsystemDef& def = onlyDef(m);
        // m1's node, m2's node (three wires) and the ground (three wires): three ports
        QCOMPARE(def.ports().size(), std::size_t(3));
        for (const core::model::BlockSpec* p : def.ports())
            QCOMPARE(QString::fromStdString(p->type), QString("port:translational"));
        QCOMPARE(m.connectionsOf("subsystem1").size(), std::size_t(3));
        QVERIFY(!m.find("k") && m.find("subsystem1"));
        QCOMPARE(m.plots().front().signals, (std::vector<std::string>{"m2.x", "subsystem1.k.f"}));
        compareResults(test::run(m), flat, {{"k", "subsystem1"}, {"d", "subsystem1"}, {"stop", "subsystem1"}});
    }

    void groupMakesSignalPorts() {
        Model m = flatModel();
        const auto flat = test::run(m);
        m.apply(core::model::groupIntoSubsystem(m, blocks::registry(), {"gain"}, "Subsystem1", "amp"));
        const auto ports = core::model::subsystemPorts(onlyDef(m));
        QCOMPARE(ports.size(), std::size_t(2));
        QCOMPARE(ports[0].kind, core::PortKind::Input);
        QCOMPARE(ports[1].kind, core::PortKind::Output);
        m.apply(core::model::groupIntoSubsystem(m, blocks::registry(), {"src"}, "Subsystem2", "source"));
        const auto out = core::model::subsystemPorts(*m.findSubsystem("Subsystem2"));
        QCOMPARE(out.size(), std::size_t(1));
        QCOMPARE(out[0].kind, core::PortKind::Output);
        compareResults(test::run(m), flat, {{"gain", "amp"}, {"src", "source"}});
    }

    void inverseRestoresExactly() {
        Model m = flatModel();
        const Model before = m;
        const core::model::Edit undo = m.apply(
            core::model::groupIntoSubsystem(m, blocks::registry(), {"fs", "m1", "k"}, "Subsystem1", "subsystem1"));
        QVERIFY(!difference(m, before).isEmpty());
        m.apply(undo);
        QVERIFY2(difference(m, before).isEmpty(), qPrintable(difference(m, before)));
        QCOMPARE(core::io::serializeProject(m), core::io::serializeProject(before));
    }

    void groupThenExpandGivesTheModelBack() {
        Model m = flatModel();
        const auto flat = test::run(m);
        m.apply(core::model::groupIntoSubsystem(m, blocks::registry(), {"gain", "fs", "m1", "k"}, "Subsystem1",
                                                "subsystem1"));
        m.apply(core::model::expandInstance(m, blocks::registry(), "subsystem1"));
        QVERIFY(m.subsystems().empty());   // no other instance: the definition goes too
        QCOMPARE(m.blocks().size(), flatModel().blocks().size());
        const Model original = flatModel();
        for (const core::model::BlockSpec& b : original.blocks()) QVERIFY2(m.find(b.name), b.name.c_str());
        QVERIFY(m.blocks() == original.blocks());   // where they were, in their order, with their positions
        QCOMPARE(m.plots(), flatModel().plots());
        compareResults(test::run(m), flat, {});
    }

    void expandSubstitutesMasks() {
        Model m = nestedFixture();
        const auto options = test::solverOptions(0.5, 1e-8, 1e-3);
        const auto nested = test::run(m, options);
        const Model before = m;
        const core::model::Edit undo = m.apply(core::model::expandInstance(m, blocks::registry(), "p"));
        QVERIFY(!m.findSubsystem("Pair") && m.findSubsystem("Stage"));   // Stage is still used
        m.apply(core::model::expandInstance(m, blocks::registry(), "s1"));
        QVERIFY(m.findSubsystem("Stage"));
        m.apply(core::model::expandInstance(m, blocks::registry(), "s2"));
        QVERIFY(m.subsystems().empty());
        QVERIFY(m.find("spring") && m.find("s2_spring"));   // the second spring's name was taken
        const Model flat = core::model::flatten(m, blocks::registry());
        QCOMPARE(std::get<double>(flat.find("spring")->params.at("stiffness")), 2e4);        // kk = k_stage
        QCOMPARE(std::get<double>(flat.find("s2_spring")->params.at("stiffness")), 1e4);     // kk/2
        QCOMPARE(std::get<double>(flat.find("s2_stop")->params.at("upper_bound")), 0.001);   // mask default
        const auto expanded = test::run(m, options);
        QCOMPARE(expanded.rows(), nested.rows());
        QCOMPARE(test::last(expanded, "s2_stop.impacts"), test::last(nested, "p.s2.stop.impacts"));
        for (double t : {0.1, 0.25, 0.5})
            QCOMPARE_NEAR(test::at(expanded, "mid.x", t), test::at(nested, "p.mid.x", t), 1e-6);
        Model back = before;
        back.apply(core::model::expandInstance(back, blocks::registry(), "p"));
        back.apply(undo);
        QVERIFY(difference(back, before).isEmpty());
    }

    void substituteLeavesUnits() {
        const std::map<std::string, std::string> by{{"k", "3 N/m"}, {"m", "2 kg"}, {"g", "1 mm"}};
        QCOMPARE(core::model::substituteNames("2*k + 1 N/m", by), std::string("2*(3 N/m) + 1 N/m"));
        QCOMPARE(core::model::substituteNames("-g", by), std::string("-(1 mm)"));
        QCOMPARE(core::model::substituteNames("1e-3 m*g + m", by), std::string("1e-3 m*g + (2 kg)"));
        QCOMPARE(core::model::substituteNames("sqrt(k/m)", by), std::string("sqrt((3 N/m)/(2 kg))"));
    }

    void makeUniqueEditsOneInstance() {
        Model m = nestedFixture();
        const core::model::EditBatch unique = core::model::makeUnique(m.findSubsystem("Pair")->body, "s2", &m);
        // s2 lives in Pair's body: the copy goes to the project, the type change into the body
        for (const core::model::Edit& e : unique.edits) {
            if (std::holds_alternative<core::model::AddSubsystem>(e.value))
                m.apply(e);
            else
                m.apply(core::model::InSubsystem{"Pair", {e}});
        }
        QVERIFY(m.findSubsystem("Stage1"));
        m.apply(core::model::InSubsystem{"Stage1", {core::model::SetParameter{"spring", "stiffness", 123.0}}});
        const Model flat = core::model::flatten(m, blocks::registry());
        QCOMPARE(std::get<double>(flat.find("p.s2.spring")->params.at("stiffness")), 123.0);
        QCOMPARE(std::get<double>(flat.find("p.s1.spring")->params.at("stiffness")), 2e4);
    }

    void refusals() {
        Model m = flatModel();
        QVERIFY_THROWS_EXCEPTION(core::ModelError,
                                 core::model::groupIntoSubsystem(m, blocks::registry(), {}, "S1", "s1"));
        QVERIFY_THROWS_EXCEPTION(core::ModelError, core::model::expandInstance(m, blocks::registry(), "m1"));
        QVERIFY_THROWS_EXCEPTION(core::ModelError, core::model::makeUnique(m, "nope"));
    }
};

QTEST_GUILESS_MAIN(TestSubsystemOps)
#include "tst_subsystem_ops.moc"
