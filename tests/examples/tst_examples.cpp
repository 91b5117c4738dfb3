// SPDX-License-Identifier: GPL-3.0-or-later
// Every bundled example (resources/examples/*.endstop, found at run time, so examples added later
// are covered too) loads, validates, runs to its stop time with finite results, re-saves
// byte-identically and plots only variables it records. The rotational example also settles
// where its closed form says.
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include "core/io/project_file.hpp"
#include "core/errors.hpp"

#include <QDir>
#include <QTest>

#include <cmath>
#include <numbers>

using namespace endstop;

class TestExamples : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyExample_data() {
        QTest::addColumn<QString>("file");
        const QStringList files =
            QDir(test::sourcePath("resources/examples")).entryList({"*.endstop"}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 2);
        for (const QString& f : files) QTest::newRow(qPrintable(f)) << f;
    }
    void everyExample() {
        QFETCH(QString, file);
        const core::model::Model model = test::loadExample(file);
        QVERIFY(!model.blocks().empty());
        const core::Diagnostics diags = core::simulation::validateModel(model, blocks::registry());
        for (const core::Diagnostic& d : diags) QVERIFY2(d.severity != core::Severity::Error, d.text().c_str());
        // a saved example reads back to the same bytes
        const QByteArray bytes = core::io::serializeProject(model);
        QCOMPARE(core::io::serializeProject(core::io::parseProject(bytes, file, blocks::registry())), bytes);
        // its plots show recorded variables
        QStringList recorded;
        for (const core::Column& c : core::simulation::recordableVariables(model, blocks::registry()))
            recorded << QString::fromStdString(c.name);
        for (const core::model::PlotSpec& p : model.plots())
            for (const std::string& s : p.signals) QVERIFY2(recorded.contains(QString::fromStdString(s)), s.c_str());
        // it runs to its stop time with the settings it was saved with
        const core::MemorySink r = test::run(model);
        QVERIFY(r.stats().completed);
        QCOMPARE(r.time().back(), model.simulation().stopTime);
        QVERIFY(r.rows() > 10);
        QCOMPARE(static_cast<qsizetype>(r.columns().size()), recorded.size());
        for (std::size_t c = 0; c < r.columns().size(); ++c)
            for (double v : r.values(c)) QVERIFY2(std::isfinite(v), r.columns()[c].name.c_str());
    }

    // Every example also runs at tight tolerances (rtol 1e-10, atol 1e-14): a declared ramp start,
    // a restitution impact and the friction example's start once failed there.
    void tightTolerances_data() { everyExample_data(); }
    void tightTolerances() {
        QFETCH(QString, file);
        const core::model::Model model = test::loadExample(file);
        core::simulation::SimulationOptions o;
        o.relativeTolerance = 1e-10;
        o.absoluteTolerance = 1e-14;
        core::MemorySink r;
        try {
            r = test::run(model, o);
        } catch (const core::Error& e) {
            QFAIL(e.what());
        }
        QVERIFY(r.stats().completed);
        QCOMPARE(r.time().back(), model.simulation().stopTime);
    }

    // flywheel on a torsion spring with a damper, torque step T at 0.2 s: it settles at T / k
    // with the damped natural frequency between the first peaks
    void flywheelSettles() {
        const core::model::Model model = test::loadExample("flywheel_torsion.endstop");
        const double k = 0.05 * 180 / std::numbers::pi, J = 0.05, d = 0.008 * 60 / (2 * std::numbers::pi), T = 0.5;
        const double wn = std::sqrt(k / J), zeta = d / (2 * std::sqrt(k * J)), wd = wn * std::sqrt(1 - zeta * zeta);
        core::simulation::SimulationOptions o;
        o.relativeTolerance = 1e-8;
        o.absoluteTolerance = 1e-10;
        o.outputInterval = 1e-3;
        const core::MemorySink r = test::run(model, o);
        QCOMPARE_NEAR(test::last(r, "flywheel.phi"), T / k, 1e-3 * T / k);
        QCOMPARE_NEAR(test::last(r, "shaft.t"), T, 1e-3 * T);
        QCOMPARE(test::at(r, "flywheel.phi", 0.1), 0.0);   // nothing moves before the step
        // the response to a step: phi = T/k (1 - e^{-zeta wn s} (cos wd s + zeta wn / wd sin wd s)), s = t - 0.2
        for (double t : {0.5, 1.0, 2.5, 6.0}) {
            const double s = t - 0.2;
            const double expected =
                T / k * (1 - std::exp(-zeta * wn * s) * (std::cos(wd * s) + zeta * wn / wd * std::sin(wd * s)));
            QCOMPARE_NEAR(test::at(r, "flywheel.phi", t), expected, 1e-5,
                          QString("t = %1").arg(t));   // incl. linear interpolation
        }
    }
};

QTEST_GUILESS_MAIN(TestExamples)
#include "tst_examples.moc"
