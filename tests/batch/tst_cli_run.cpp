// SPDX-License-Identifier: GPL-3.0-or-later
// endstop-batch run and its flags, as a user runs it in a scratch directory (README, "Headless
// batch tool"): CSV layout and precision, --out -, --stats keys, --set, tolerances, the output
// grid, --signals, dense and KLU, flags before the model.
#include "batch/cli_support.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace endstop;
using namespace endstop::test::cli;
using test::runBatch;

class TestCliRun : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_osc, m_free;

    QString scratch(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(QFile::exists(ENDSTOP_BATCH_EXE));
        m_osc = fixture("run/oscillator.endstop");
        m_free = fixture("run/free_oscillator.endstop");
    }

    // header time,block.var,... in model order, one row per step, every value at round-trip
    // precision: the CSV holds exactly what the library computed
    void runWritesCsvAndEvents() {
        const QString out = scratch("run.csv"), events = scratch("run_events.csv");
        const auto r = runBatch({"run", m_osc, "--out", out, "--events", events});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));   // with --out, no summary
        const Csv csv = parseCsv(readText(out));
        QVERIFY2(csv.error.isEmpty(), qPrintable(csv.error));
        QStringList expected{"time"};
        for (const core::Column& c : core::simulation::recordableVariables(
                 core::io::loadProject(m_osc, blocks::registry()), blocks::registry()))
            expected << QString::fromStdString(c.name);
        QCOMPARE(csv.header, expected);
        for (const char* column :
             {"force.y", "source.f", "mass1.v", "mass1.x", "mass1.a", "spring1.x", "spring1.f", "damper1.power"})
            QVERIFY2(csv.header.contains(column), column);
        const QString diff = diffAgainst(csv, inProcess(m_osc));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // shortest round-trip text, and not rounded to a few digits
        int longCells = 0;
        for (const QStringList& row : csv.cells)
            for (const QString& cell : row) {
                bool ok = false;
                QCOMPARE(QString::fromStdString(core::formatNumber(parse(cell, &ok))), cell);
                longCells += cell.size() >= 17;
            }
        QVERIFY(longCells > 100);
        QCOMPARE(csv.rows.front()[0], 0.0);
        QCOMPARE(csv.rows.back()[0], 2.0);
        // the step at 0.5 s: rows before and after it at exactly 0.5, and one event
        int atStep = 0;
        for (const auto& row : csv.rows) atStep += row[0] == 0.5;
        QVERIFY(atStep >= 2);
        QCOMPARE(readText(events), QString("time,block,kind,velocity\n0.5,force,time,0\n"));
    }

    // --out - : the CSV and nothing else on stdout, byte for byte what --out FILE writes
    void outToStdout() {
        const QString out = scratch("stdout_ref.csv");
        QCOMPARE(runBatch({"run", m_osc, "--out", out}).exitCode, 0);
        const auto r = runBatch({"run", m_osc, "--out", "-", "--stats"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, readText(out));
        QVERIFY(!r.out.contains('{'));
        QVERIFY2(r.err.contains("\"steps\""), qPrintable(r.err));   // the stats went to stderr
    }

    // without --out: a short summary, no CSV anywhere
    void summaryWithoutOut() {
        QTemporaryDir cwd;
        const auto r = runBatch({"run", m_osc}, cwd.path());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.out.contains("simulated to t = 2 s") && r.out.contains("mass1.x") && r.out.contains("no CSV written"),
            qPrintable(r.out));
        QVERIFY(entries(cwd.path()).isEmpty());
        // a model with more variables than the summary shows: the count of the others is right
        // although the run recorded only the ones shown
        const QString drive = test::sourcePath("resources/examples/drive_train.endstop");
        const auto vars = runBatch({"variables", drive});
        const qsizetype total = vars.out.count('\n');
        QVERIFY(total > 12);
        const auto s = runBatch({"run", drive}, cwd.path());
        QCOMPARE(s.exitCode, 0);
        QVERIFY2(s.out.contains(QString("  ... %1 more (use --out)").arg(total - 12)), qPrintable(s.out));
        QCOMPARE(s.out.count('\n'), 1 + 12 + 1 + 1);   // header, 12 values, "... more", "no CSV"
    }

    // --stats: one JSON line with the keys the README lists
    void stats() {
        const auto r = runBatch({"run", m_osc, "--out", scratch("stats.csv"), "--stats"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(oneLine(r.out), qPrintable(r.out));
        QJsonParseError err;
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8(), &err).object();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        for (const char* key : {"steps", "residual_evals", "jacobian_evals", "events", "build_s", "solve_s", "wall_s",
                                "unknowns", "unknowns_before", "aliases", "explicit", "quadratures"})
            QVERIFY2(o.contains(key) && o[key].isDouble() && o[key].toDouble() >= 0, key);
        QVERIFY(o["steps"].toInt() > 10);
        // where the network's unknowns went: each one is solved by IDA or eliminated one way
        QCOMPARE(o["unknowns"].toInt() + o["aliases"].toInt() + o["explicit"].toInt() + o["quadratures"].toInt(),
                 o["unknowns_before"].toInt());
        QVERIFY(o["residual_evals"].toInt() >= o["steps"].toInt());
        QCOMPARE(o["events"].toInt(), 1);
        QCOMPARE(o["unknowns"].toInt(), static_cast<int>(inProcess(m_osc).stats().unknowns));
        QVERIFY(o["wall_s"].toDouble() >= o["solve_s"].toDouble());
    }

    // "reduce": true in the file's settings runs the reduction as --reduce on does, and as a file
    // without the key does (the default; the same bytes); --reduce off overrides the file
    void reduceFromTheFile() {
        QByteArray text = readText(m_osc).toUtf8();
        text.replace(R"("absolute_tolerance": 1e-10 })", R"("absolute_tolerance": 1e-10, "reduce": true })");
        QVERIFY(text.contains("\"reduce\""));
        const QString reducedModel = writeText(scratch("reduced.endstop"), text);
        auto unknowns = [](const QString& statsLine) {
            const QJsonObject o = QJsonDocument::fromJson(statsLine.toUtf8()).object();
            return std::pair{o["unknowns"].toInt(), o["unknowns_before"].toInt()};
        };
        const auto fromFile = runBatch({"run", reducedModel, "--out", scratch("file.csv"), "--stats"});
        QCOMPARE(fromFile.exitCode, 0);
        const auto [reduced, before] = unknowns(fromFile.out);
        QVERIFY2(reduced < before, qPrintable(fromFile.out));
        const auto flag = runBatch({"run", m_osc, "--out", scratch("flag.csv"), "--reduce", "on"});
        QCOMPARE(flag.exitCode, 0);
        QCOMPARE(readText(scratch("file.csv")), readText(scratch("flag.csv")));
        const auto plain = runBatch({"run", m_osc, "--out", scratch("plain.csv"), "--stats"});
        QCOMPARE(plain.exitCode, 0);
        QCOMPARE(unknowns(plain.out), std::pair(reduced, before));
        QCOMPARE(readText(scratch("plain.csv")), readText(scratch("file.csv")));
        const auto off = runBatch({"run", reducedModel, "--out", scratch("off.csv"), "--stats", "--reduce", "off"});
        QCOMPARE(off.exitCode, 0);
        QCOMPARE(unknowns(off.out), std::pair(before, before));
    }

    // Validation's warnings go to stderr before the run, which still runs: a table spring whose
    // smooth curve falls past its last point is a negative stiffness out there.
    void runPrintsWarnings() {
        const QString model = writeText(scratch("warn.endstop"), R"({
  "format": "endstop-project", "formatVersion": 1,
  "simulation": { "stop_time": 0.01 },
  "blocks": [
    { "name": "m", "type": "translational.mass" },
    { "name": "k", "type": "translational.nonlinear_spring",
      "parameters": { "parameterization": "table", "displacements": [0.01, 0.02, 0.03],
                      "forces": [10, 20, 21], "interpolation": "smooth" } },
    { "name": "g", "type": "translational.reference" } ],
  "connections": [ ["m.M", "k.R"], ["k.C", "g.R"] ] })");
        const auto r = runBatch({"run", model, "--out", scratch("warn.csv")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.err.contains(
                model + ": warning: block 'k', parameter 'extrapolation': linear extrapolation above the last point"),
            qPrintable(r.err));
        QVERIFY2(!r.err.contains("below the first point"), qPrintable(r.err));
        QVERIFY(runBatch({"run", m_osc, "--out", scratch("nowarn.csv")}).err.isEmpty());
    }

    void setParameters() {
        const QString out = scratch("set.csv");
        auto r = runBatch({"run", m_osc, "--out", out, "--set", "mass1.mass=4000 g", "--set=spring1.stiffness=1.2 kN/m",
                           "--set", "force.step_time=0.25"});
        QCOMPARE(r.exitCode, 0);
        const QString diff =
            diffAgainst(parseCsv(readText(out)),
                        inProcess(m_osc, {core::model::SetParameter{"mass1", "mass", core::ParamValue{4.0}},
                                          core::model::SetParameter{"spring1", "stiffness", core::ParamValue{1200.0}},
                                          core::model::SetParameter{"force", "step_time", core::ParamValue{0.25}}}));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // a choice and a vector
        r = runBatch({"run", m_osc, "--out", scratch("set2.csv"), "--set", "force.final_value=-3"});
        QCOMPARE(r.exitCode, 0);
    }

    void stopTimeAndTolerances() {
        const QString a = scratch("stop.csv");
        QCOMPARE(runBatch({"run", m_osc, "--out", a, "--stop-time", "0.7"}).exitCode, 0);
        const Csv csv = parseCsv(readText(a));
        QCOMPARE(csv.rows.back()[0], 0.7);
        // tighter tolerances take more steps and agree within the looser tolerance
        auto steps = [&](const QStringList& tol, const QString& file) {
            const auto r = runBatch(QStringList{"run", m_free, "--out", file, "--stats"} + tol);
            return QJsonDocument::fromJson(r.out.toUtf8()).object()["steps"].toInt();
        };
        const int loose = steps({"--rtol", "1e-4", "--atol", "1e-6"}, scratch("loose.csv"));
        const int tight = steps({"--rtol", "1e-9", "--atol", "1e-11"}, scratch("tight.csv"));
        QVERIFY2(tight > 2 * loose, qPrintable(QString("%1 vs %2 steps").arg(tight).arg(loose)));
        const Csv l = parseCsv(readText(scratch("loose.csv"))), t = parseCsv(readText(scratch("tight.csv")));
        const double w = 20.0;   // sqrt(800 / 2)
        QCOMPARE_NEAR(t.rows.back()[t.column("m.x")], 0.5 / w * std::sin(w * 2), 1e-7);
        QCOMPARE_NEAR(l.rows.back()[l.column("m.x")], 0.5 / w * std::sin(w * 2), 1e-3);
    }

    // --output-interval: rows on k * dt, IDA's interpolation, matching an every-step run
    void outputInterval() {
        const QString grid = scratch("grid.csv"), steps = scratch("steps.csv");
        QCOMPARE(runBatch({"run", m_free, "--out", grid, "--output-interval", "0.01"}).exitCode, 0);
        QCOMPARE(runBatch({"run", m_free, "--out", steps}).exitCode, 0);
        const Csv g = parseCsv(readText(grid)), s = parseCsv(readText(steps));
        QCOMPARE(g.rows.size(), std::size_t(201));
        for (std::size_t k = 0; k < g.rows.size(); ++k)
            QCOMPARE_NEAR(g.rows[k][0], 0.01 * static_cast<double>(k), 1e-12, g.cells[k][0]);
        QCOMPARE(g.rows.back()[0], 2.0);
        QVERIFY(s.rows.size() != g.rows.size());
        // the every-step run, interpolated with cubic Hermite (x and its derivative v), at each grid time
        const std::size_t x = s.column("m.x"), v = s.column("m.v");
        const double w = 20.0;
        double worst = 0.0, worstExact = 0.0;
        std::size_t i = 1;
        for (const auto& row : g.rows) {
            const double t = row[0];
            while (i + 1 < s.rows.size() && s.rows[i][0] < t) ++i;
            const auto &p = s.rows[i - 1], &q = s.rows[i];
            const double h = q[0] - p[0], u = h > 0 ? (t - p[0]) / h : 0.0;
            const double hermite = (2 * u * u * u - 3 * u * u + 1) * p[x] + (u * u * u - 2 * u * u + u) * h * p[v] +
                                   (-2 * u * u * u + 3 * u * u) * q[x] + (u * u * u - u * u) * h * q[v];
            worst = std::max(worst, std::abs(row[g.column("m.x")] - hermite));
            worstExact = std::max(worstExact, std::abs(row[g.column("m.x")] - 0.5 / w * std::sin(w * t)));
        }
        QVERIFY2(worst < 1e-7, qPrintable(QString("grid vs every-step run: %1").arg(worst)));
        QVERIFY2(worstExact < 1e-7, qPrintable(QString("grid vs closed form: %1").arg(worstExact)));
    }

    void signalsFlag() {
        const QString out = scratch("signals.csv");
        QCOMPARE(runBatch({"run", m_osc, "--out", out, "--signals", "spring1.f,mass1.x"}).exitCode, 0);
        const Csv csv = parseCsv(readText(out));
        QCOMPARE(csv.header.size(), 3);
        QVERIFY(csv.header.contains("mass1.x") && csv.header.contains("spring1.f"));
        QCOMPARE(runBatch({"run", m_osc, "--out", scratch("signals_all.csv")}).exitCode, 0);
        const Csv all = parseCsv(readText(scratch("signals_all.csv")));
        QCOMPARE(csv.rows.size(), all.rows.size());
        for (std::size_t r = 0; r < csv.rows.size(); ++r) QCOMPARE(csv.at(r, "mass1.x"), all.at(r, "mass1.x"));
        // a name given twice is one column
        QCOMPARE(runBatch({"run", m_osc, "--out", out, "--signals", "mass1.x,mass1.x"}).exitCode, 0);
        QCOMPARE(parseCsv(readText(out)).header, (QStringList{"time", "mass1.x"}));
    }

    // dense and KLU solve the same system: the same answer, and --stats says which was used
    void denseAndKlu() {
        QStringList solver;
        std::vector<Csv> results;
        for (const char* s : {"dense", "klu"}) {
            const QString out = scratch(QString("solver_%1.csv").arg(s));
            const auto r = runBatch({"run", m_osc, "--out", out, "--linear-solver", s, "--stats"});
            QCOMPARE(r.exitCode, 0);
            solver << QJsonDocument::fromJson(r.out.toUtf8()).object()["linear_solver"].toString();
            results.push_back(parseCsv(readText(out)));
        }
        QCOMPARE(solver, (QStringList{"dense", "klu"}));
        const Csv &d = results[0], &k = results[1];
        QCOMPARE(d.header, k.header);
        QCOMPARE(d.rows.back()[0], k.rows.back()[0]);
        for (std::size_t c = 1; c < static_cast<std::size_t>(d.header.size()); ++c) {
            const double a = d.rows.back()[c], b = k.rows.back()[c];
            QCOMPARE_NEAR(a, b, 1e-6 * (1 + std::abs(a)), d.header[static_cast<qsizetype>(c)]);
        }
    }

    // KLU is a module loaded when a run first asks for it (docs/architecture.md, "Starting a
    // process"): a dense run maps none of its libraries, a KLU run maps the module and KLU, and a
    // module that cannot be loaded is an error naming its file, for KLU runs alone
    void kluLoadedOnDemand() {
        const auto run = [&](const char* solver, const QString& module) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("LD_DEBUG", "files");   // glibc: each shared object, as it is loaded
            if (!module.isEmpty()) env.insert("ENDSTOP_KLU_MODULE", module);
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(ENDSTOP_BATCH_EXE, {"run", m_osc, "--out", scratch("klu.csv"), "--linear-solver", solver});
            const bool finished = p.waitForFinished(60000);
            return std::pair{finished ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError())};
        };
        const auto loaded = [](const QString& err, const char* file) {
            return err.contains(QString("file=%1").arg(file)) || err.contains(QString("/%1").arg(file));
        };
        const auto [denseCode, denseErr] = run("dense", {});
        QCOMPARE(denseCode, 0);
        QVERIFY2(denseErr.contains("file=libQt6Core"), "LD_DEBUG=files should list the libraries loaded");
        QVERIFY(!loaded(denseErr, "libendstop_klu"));
        QVERIFY(!loaded(denseErr, "libklu"));
        const auto [kluCode, kluErr] = run("klu", {});
        QCOMPARE(kluCode, 0);
        QVERIFY(loaded(kluErr, "libendstop_klu"));
        QVERIFY(loaded(kluErr, "libklu"));

        const QString missing = scratch("no_such_module.so");
        QCOMPARE(run("dense", missing).first, 0);
        const auto [code, err] = run("klu", missing);
        QCOMPARE(code, 1);
        QVERIFY2(err.contains("the KLU module " + missing + " could not be loaded"), qPrintable(err.right(400)));
        QVERIFY2(err.contains("ENDSTOP_KLU_MODULE"), qPrintable(err.right(400)));
    }

    // flags may come before the model
    void flagsBeforeModel() {
        const auto r = runBatch({"run", "--stats", "--stop-time", "0.5", m_osc, "--out", scratch("order.csv")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("{\"steps\""), qPrintable(r.out + r.err));
        QCOMPARE(parseCsv(readText(scratch("order.csv"))).rows.back()[0], 0.5);
    }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "tst_cli_run.moc"
