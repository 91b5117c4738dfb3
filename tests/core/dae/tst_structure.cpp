// SPDX-License-Identifier: GPL-3.0-or-later
// Structural analysis: the maximum matching that finds singular systems and Pantelides' algorithm
// that finds the rows to differentiate, first on small hand-made incidences, then through whole
// models, where ill-posed ones are refused before IDA with messages naming blocks and ports and
// the models Simscape and Modelica accept are reduced and kept.
#include "support/model_builder.hpp"
#include "support/test_support.hpp"

#include "core/dae/dae_system.hpp"
#include "core/dae/structure.hpp"
#include "core/graph/topology.hpp"
#include "core/errors.hpp"

#include <QTest>

using namespace endstop;
using core::dae::Incidence;

Q_DECLARE_METATYPE(Incidence)

namespace {

// Build an incidence from rows of (unknown, order).
Incidence incidence(int vars, std::vector<std::vector<std::pair<int, int>>> rows) {
    return Incidence{vars, std::move(rows)};
}

QList<int> list(const std::vector<int>& v) { return QList<int>(v.begin(), v.end()); }

// The diagnostics assembling a model produces, as text lines; empty if it assembles.
QStringList refusal(const core::model::Model& m) {
    try {
        core::dae::assemble(core::graph::buildTopology(m, blocks::registry()));
    } catch (const core::TopologyError& e) {
        QStringList out;
        for (const core::Diagnostic& d : e.diagnostics()) out << QString::fromStdString(d.text());
        return out;
    }
    return {};
}

}   // namespace

class TestStructure : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void singularity_data() {
        QTest::addColumn<Incidence>("inc");
        QTest::addColumn<bool>("singular");
        QTest::addColumn<QList<int>>("rows");   // over-determined rows
        QTest::addColumn<QList<int>>("vars");   // under-determined unknowns
        QTest::newRow("empty") << incidence(0, {}) << false << QList<int>{} << QList<int>{};
        QTest::newRow("ode") << incidence(1, {{{0, 1}, {0, 0}}}) << false << QList<int>{} << QList<int>{};
        // x' = v, m v' = -k x: derivative order is ignored by the matching
        QTest::newRow("oscillator") << incidence(2, {{{0, 1}, {1, 0}}, {{1, 1}, {0, 0}}}) << false << QList<int>{}
                                    << QList<int>{};
        QTest::newRow("needs augmenting path")
            << incidence(3, {{{0, 0}, {1, 0}}, {{0, 0}}, {{1, 0}, {2, 0}}}) << false << QList<int>{} << QList<int>{};
        QTest::newRow("repeated entries")
            << incidence(1, {{{0, 0}, {0, 1}, {0, 0}}}) << false << QList<int>{} << QList<int>{};
        // two rows fix unknown 0, nothing fixes unknown 1
        QTest::newRow("over and under") << incidence(2, {{{0, 0}}, {{0, 1}}}) << true << QList<int>{0, 1}
                                        << QList<int>{1};
        // one row for two unknowns
        QTest::newRow("under only") << incidence(2, {{{0, 0}, {1, 0}}}) << true << QList<int>{} << QList<int>{0, 1};
        // three rows on two unknowns; the third unknown is fine on its own
        QTest::newRow("over only") << incidence(2, {{{0, 0}, {1, 0}}, {{0, 0}}, {{1, 1}}}) << true
                                   << QList<int>{0, 1, 2} << QList<int>{};
        // the singular part is named, the regular part is left out
        QTest::newRow("regular part left out") << incidence(4, {{{0, 0}}, {{1, 0}, {0, 0}}, {{2, 0}}, {{2, 1}}}) << true
                                               << QList<int>{2, 3} << QList<int>{3};
    }
    void singularity() {
        QFETCH(Incidence, inc);
        QFETCH(bool, singular);
        QFETCH(QList<int>, rows);
        QFETCH(QList<int>, vars);
        const auto s = core::dae::findSingularity(inc);
        QCOMPARE(s.has_value(), singular);
        if (!s) return;
        QCOMPARE(list(s->rows), rows);
        QCOMPARE(list(s->vars), vars);
    }

    void pantelides_data() {
        QTest::addColumn<Incidence>("inc");
        QTest::addColumn<QList<int>>("differentiated");
        QTest::addColumn<QList<int>>("order");
        QTest::newRow("index 1") << incidence(2, {{{0, 1}, {1, 0}}, {{1, 1}, {0, 0}}}) << QList<int>{}
                                 << QList<int>{1, 1};
        QTest::newRow("algebraic") << incidence(2, {{{0, 0}, {1, 0}}, {{1, 0}}}) << QList<int>{} << QList<int>{0, 0};
        // velocity source on a mass: unknowns v (node), f (source force), s (signal)
        //   m v' + f = 0;  v - s = 0;  s - sin t = 0
        QTest::newRow("velocity source on a mass")
            << incidence(3, {{{0, 1}, {1, 0}}, {{0, 0}, {2, 0}}, {{2, 0}}}) << QList<int>{1, 2} << QList<int>{1, 0, 1};
        // springs in series: x1' = v1 - v2, x2' = v2, m v1' = -k1 x1, node 2: k1 x1 - k2 x2 = 0
        //   unknowns x1, x2, v1, v2
        QTest::newRow("springs in series")
            << incidence(4, {{{0, 1}, {2, 0}, {3, 0}}, {{1, 1}, {3, 0}}, {{2, 1}, {0, 0}}, {{0, 0}, {1, 0}}})
            << QList<int>{3} << QList<int>{1, 1, 1, 0};
        // a rigid link (force sensor) between two masses: v1 - v2 = 0 with the link force f
        //   unknowns v1, v2, f:  m1 v1' + f = 0;  m2 v2' - f = 0;  v1 - v2 = 0
        QTest::newRow("rigid link") << incidence(3, {{{0, 1}, {2, 0}}, {{1, 1}, {2, 0}}, {{0, 0}, {1, 0}}})
                                    << QList<int>{2} << QList<int>{1, 1, 0};
    }
    void pantelides() {
        QFETCH(Incidence, inc);
        QFETCH(QList<int>, differentiated);
        QFETCH(QList<int>, order);
        QVERIFY(!core::dae::findSingularity(inc));
        const auto red = core::dae::pantelides(inc);
        QCOMPARE(list(red.differentiated), differentiated);
        QCOMPARE(list(red.order), order);
    }

    // A position constraint on a mass (x' = v, m v' = F, x = 0) is index 3: refused, pointing at the
    // constraint, the row that would be differentiated twice.
    void indexTooHigh() {
        const Incidence inc = incidence(3, {{{0, 1}, {1, 0}}, {{1, 1}, {2, 0}}, {{0, 0}}});
        QVERIFY(!core::dae::findSingularity(inc));
        try {
            core::dae::pantelides(inc);
            QFAIL("no IndexTooHigh");
        } catch (const core::dae::IndexTooHigh& e) {
            QCOMPARE(e.row(), 2);
        }
    }

    // A long rigid chain: every link differentiated once, no recursion limit (iterative search).
    void longChain() {
        const int n = 2000;   // masses; unknowns: v_i (i < n) then link forces f_i (i < n-1)
        Incidence inc{2 * n - 1, {}};
        for (int i = 0; i < n; ++i) {
            std::vector<std::pair<int, int>> row{{i, 1}};
            if (i > 0) row.push_back({n + i - 1, 0});
            if (i < n - 1) row.push_back({n + i, 0});
            inc.rows.push_back(row);
        }
        for (int i = 0; i < n - 1; ++i) inc.rows.push_back({{i, 0}, {i + 1, 0}});
        QVERIFY(!core::dae::findSingularity(inc));
        const auto red = core::dae::pantelides(inc);
        QCOMPARE(static_cast<int>(red.differentiated.size()), n - 1);
    }

    // Whole models that cannot be simulated: refused before IDA, naming blocks and ports.
    void illPosedModels_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QStringList>("expected");   // fragments of the first diagnostic
        QTest::newRow("two velocity sources in parallel")
            << R"({"blocks":[
            {"name":"c1","type":"signal.constant"}, {"name":"c2","type":"signal.constant","parameters":{"value":2}},
            {"name":"vs1","type":"translational.velocity_source"}, {"name":"vs2","type":"translational.velocity_source"},
            {"name":"m","type":"translational.mass"}, {"name":"g","type":"translational.reference"}],
            "connections":[["c1.y","vs1.S"],["c2.y","vs2.S"],["vs1.R","m.M"],["vs2.R","m.M"],["vs1.C","g.R"],["vs2.C","g.R"]]})"
            << QStringList{"over-determined", "vs1", "vs2", "constrain the same motion"};
        QTest::newRow("two speed sources, no inertia") << R"({"blocks":[
            {"name":"c","type":"signal.constant"},
            {"name":"w1","type":"rotational.speed_source"}, {"name":"w2","type":"rotational.speed_source"},
            {"name":"g","type":"rotational.reference"}],
            "connections":[["c.y","w1.S"],["c.y","w2.S"],["w1.R","w2.R"],["w1.C","g.R"],["w2.C","g.R"]]})"
                                                       << QStringList{"over-determined", "w1", "w2"};
        QTest::newRow("force source on a bare node")
            << R"({"blocks":[
            {"name":"c","type":"signal.constant"}, {"name":"fs","type":"translational.force_source"},
            {"name":"g","type":"translational.reference"}],
            "connections":[["c.y","fs.S"],["fs.C","g.R"]]})"
            << QStringList{"block 'fs'", "under-determined", "velocity of node {fs.R}", "only prescribed forces"};
        QTest::newRow("force source between two bare nodes") << R"({"blocks":[
            {"name":"c","type":"signal.constant"}, {"name":"fs","type":"translational.force_source"},
            {"name":"k","type":"translational.spring"}],
            "connections":[["c.y","fs.S"],["fs.R","k.R"],["fs.C","k.C"]]})"
                                                             << QStringList{"under-determined", "{fs.R, k.R}"};
        QTest::newRow("torque on a bare node")
            << R"({"blocks":[
            {"name":"c","type":"signal.constant"}, {"name":"ts","type":"rotational.torque_source"},
            {"name":"g","type":"rotational.reference"}],
            "connections":[["c.y","ts.S"],["ts.C","g.R"]]})"
            << QStringList{"under-determined", "angular velocity of node {ts.R}", "torques"};
        // a force source whose C end is left free: a missing reference, not two blocks to choose from
        QTest::newRow("force source without a reference")
            << R"({"blocks":[
            {"name":"k","type":"signal.constant"}, {"name":"src","type":"translational.force_source"},
            {"name":"m","type":"translational.mass"}, {"name":"s","type":"translational.spring"}],
            "connections":[["k.y","src.S"],["src.R","m.M"],["m.M","s.R"]]})"
            << QStringList{"block 'src', port 'C'", "velocity of node {src.C}", "no reference",
                           "connect src.C to a Reference"};
        QTest::newRow("torque source without a reference")
            << R"({"blocks":[
            {"name":"k","type":"signal.constant"}, {"name":"ts","type":"rotational.torque_source"},
            {"name":"j","type":"rotational.inertia"}],
            "connections":[["k.y","ts.S"],["ts.R","j.I"]]})"
            << QStringList{"{ts.C}", "torques", "no reference", "Reference (ground)"};
        // an acceleration fed into a velocity constraint: v2 = a1 = v1' = s' would need v1''
        QTest::newRow("index too high") << R"({"blocks":[
            {"name":"s","type":"signal.sine"}, {"name":"vs1","type":"translational.velocity_source"},
            {"name":"m1","type":"translational.mass"}, {"name":"acc","type":"translational.motion_sensor"},
            {"name":"vs2","type":"translational.velocity_source"}, {"name":"m2","type":"translational.mass"},
            {"name":"g","type":"translational.reference"}],
            "connections":[["s.y","vs1.S"],["vs1.R","m1.M"],["vs1.C","g.R"],["acc.R","m1.M"],["acc.C","g.R"],
                           ["acc.a","vs2.S"],["vs2.R","m2.M"],["vs2.C","g.R"]]})"
                                        << QStringList{"block 'vs2'", "equation of vs2", "differentiated twice",
                                                       "index above 2"};
    }
    void illPosedModels() {
        QFETCH(QString, json);
        QFETCH(QStringList, expected);
        const core::model::Model m = test::modelFromJson(json.toStdString());
        const QStringList errors = refusal(m);
        QVERIFY2(!errors.isEmpty(), "assembled");
        for (const QString& f : expected)
            QVERIFY2(errors.front().contains(f), qPrintable(errors.join('\n') + "\n   lacks: " + f));
        if (expected.contains("no reference"))   // the same missing reference is not also "over-determined"
            QVERIFY2(!errors.join('\n').contains("remove one of them"), qPrintable(errors.join('\n')));
        // validateModel() says the same and never throws
        const core::Diagnostics diags = core::simulation::validateModel(m, blocks::registry());
        QVERIFY(core::hasErrors(diags));
        // and simulate() refuses before anything reaches the sink
        core::MemorySink sink;
        QVERIFY_THROWS_EXCEPTION(core::TopologyError, core::simulation::simulate(m, blocks::registry(), {}, sink));
        QVERIFY(sink.columns().empty());
    }

    // Models Simscape and Modelica accept: assembled, reduced where needed, and they run.
    void acceptedModels_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("dummies");   // dummy derivatives index reduction introduced
        QTest::newRow("mass on a spring") << R"({"blocks":[
            {"name":"m","type":"translational.mass","parameters":{"initial_velocity":1}},
            {"name":"k","type":"translational.spring"}, {"name":"g","type":"translational.reference"}],
            "connections":[["m.M","k.R"],["k.C","g.R"]]})"
                                          << 0;
        QTest::newRow("two springs in series") << R"({"blocks":[
            {"name":"m","type":"translational.mass","parameters":{"initial_velocity":1}},
            {"name":"k1","type":"translational.spring"}, {"name":"k2","type":"translational.spring","parameters":{"stiffness":300}},
            {"name":"g","type":"translational.reference"}],
            "connections":[["m.M","k1.R"],["k1.C","k2.R"],["k2.C","g.R"]]})"
                                               << 1;
        QTest::newRow("velocity source on a mass") << R"({"blocks":[
            {"name":"s","type":"signal.sine"}, {"name":"vs","type":"translational.velocity_source"},
            {"name":"m","type":"translational.mass"}, {"name":"g","type":"translational.reference"}],
            "connections":[["s.y","vs.S"],["vs.R","m.M"],["vs.C","g.R"]]})"
                                                   << 2;
        QTest::newRow("rigid chain through a force sensor") << R"({"blocks":[
            {"name":"c","type":"signal.constant","parameters":{"value":6}}, {"name":"fs","type":"translational.force_source"},
            {"name":"a","type":"translational.mass","parameters":{"initial_velocity":3}},
            {"name":"sens","type":"translational.force_sensor"}, {"name":"b","type":"translational.mass","parameters":{"mass":2}},
            {"name":"g","type":"translational.reference"}],
            "connections":[["c.y","fs.S"],["fs.R","a.M"],["fs.C","g.R"],["a.M","sens.R"],["sens.C","b.M"]]})"
                                                            << 1;
        QTest::newRow("spring and damper in series") << R"({"blocks":[
            {"name":"m","type":"translational.mass","parameters":{"initial_velocity":1}},
            {"name":"k","type":"translational.spring"}, {"name":"d","type":"translational.damper"},
            {"name":"g","type":"translational.reference"}],
            "connections":[["m.M","k.R"],["k.C","d.R"],["d.C","g.R"]]})"
                                                     << 0;
        QTest::newRow("open port is a free end") << R"({"blocks":[
            {"name":"m","type":"translational.mass","parameters":{"initial_velocity":1}},
            {"name":"d","type":"translational.damper"}],
            "connections":[["m.M","d.R"]]})" << 0;
    }
    void acceptedModels() {
        QFETCH(QString, json);
        QFETCH(int, dummies);
        const core::model::Model m = test::modelFromJson(json.toStdString());
        const QStringList errors = refusal(m);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        const auto sys = core::dae::assemble(core::graph::buildTopology(m, blocks::registry()));
        int count = 0;
        for (const auto& u : sys.unknowns) count += u.kind == core::dae::Unknown::Kind::Dummy;
        QCOMPARE(count, dummies);
        QCOMPARE(static_cast<int>(sys.rows.size()), sys.size());   // square
        QVERIFY(!core::hasErrors(core::simulation::validateModel(m, blocks::registry())));
        core::simulation::SimulationOptions o;
        o.stopTime = 0.2;
        const auto r = test::run(m, o);
        QVERIFY(r.stats().completed);
    }

    // An unconnected conserving port is allowed and listed as info, naming block and port.
    void openPortIsInfo() {
        test::ModelBuilder net;
        net.block("m", "translational.mass").block("d", "translational.damper");
        net.connect("m.M", "d.R");
        const core::model::Model m = net.build();
        const core::Diagnostics diags = core::simulation::validateModel(m, blocks::registry());
        QVERIFY(!core::hasErrors(diags));
        bool found = false;
        for (const core::Diagnostic& d : diags)
            found = found || (d.severity == core::Severity::Info && d.block == "d" && d.port == "C");
        QVERIFY(found);
    }

    // The free end's note names the flow of its domain: zero force, or zero torque.
    void freeEndNamesItsFlow() {
        test::ModelBuilder net;
        net.block("j", "rotational.inertia")
            .block("k", "rotational.spring")
            .block("m", "translational.mass")
            .block("d", "translational.damper");
        net.connect("j.I", "k.R").connect("m.M", "d.R");
        const core::model::Model m = net.build();
        QStringList notes;
        for (const core::Diagnostic& d : core::simulation::validateModel(m, blocks::registry()))
            if (d.severity == core::Severity::Info) notes << QString::fromStdString(d.text());
        QVERIFY2(notes.filter("block 'k', port 'C'").value(0).endsWith("free end (zero torque)"),
                 qPrintable(notes.join('\n')));
        QVERIFY2(notes.filter("block 'd', port 'C'").value(0).endsWith("free end (zero force)"),
                 qPrintable(notes.join('\n')));
    }
};

QTEST_GUILESS_MAIN(TestStructure)
#include "tst_structure.moc"
