// SPDX-License-Identifier: GPL-3.0-or-later
// Run control and live plots in the main window, through its actions and widgets (offscreen): Run
// on a bundled example fills the plot with the batch tool's numbers; a long result is drawn through
// its envelope; Pause holds and Stop ends a run keeping what it computed (how fast Stop takes
// effect is bench/gui_stop_latency.cpp's measure, not a unit test's); a failed
// run lands in the diagnostics list with its block; the stop time and the solver settings go
// through the undo stack; the cursor reads the values; PNG/PDF/CSV export; the plot setup (browser
// double-click, the canvas's Plot menu, subplots) survives save and open.
#include "blocks/registry.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/main_window.hpp"
#include "gui/plot_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/signal_browser.hpp"
#include "gui/solver_settings_dialog.hpp"
#include "gui/subplot.hpp"
#include "gui_test_support.hpp"
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QTest>
#include <QThreadPool>
#include <QToolBar>
#include <QTreeWidget>
#include <QUndoStack>

using namespace endstop;

namespace {

QStringList lastCsvRow(const QString& csv) {
    const QStringList lines = csv.trimmed().split('\n');
    return lines.isEmpty() ? QStringList() : lines.back().split(',');
}

double lastValue(const QCPGraph* g) { return g->data()->at(g->dataCount() - 1)->value; }

}   // namespace

class TestPlots : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    QTemporaryDir m_dir;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::Document& doc() const { return m_window->document(); }
    gui::RunController& runs() const { return *m_window->runs(); }
    gui::PlotPanel& plots() const { return *m_window->plots(); }
    QString example(const char* name) const { return test::sourcePath(QStringLiteral("resources/examples/") + name); }

    bool runAndWait(int timeoutMs = 30000) {
        m_window->action("run")->trigger();
        return QTest::qWaitFor([this] { return !runs().active(); }, timeoutMs);
    }
    const QCPGraph* currentGraph(int subplot, const char* signal) const {
        return plots().subplot(subplot)->graph(signal, runs().current()->id());
    }

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(m_settings); }
    void init() {
        m_window = test::shownWindow(QSize(1280, 800));
        QVERIFY(m_window);
    }
    void cleanup() {
        doc().markClean();
        m_window.reset();
        QThreadPool::globalInstance()->waitForDone();
    }

    void runFillsThePlotWithTheBatchResult() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QCOMPARE(plots().subplotCount(), 2);
        QVERIFY(runAndWait());
        const gui::RunSeries* run = runs().current();
        QCOMPARE(run->run().state(), core::simulation::RunState::Finished);
        const auto batch = test::runBatch(
            {"run", example("rattling_mass.endstop"), "--signals", "stops.x,stops.v,stops.f", "--out", "-"});
        QCOMPARE(batch.exitCode, 0);
        const QStringList last = lastCsvRow(batch.out);
        QCOMPARE(last.size(), 4);
        const QCPGraph* x = currentGraph(0, "stops.x");
        const QCPGraph* v = currentGraph(0, "stops.v");
        const QCPGraph* f = currentGraph(1, "stops.f");
        QVERIFY(x && v && f);
        QCOMPARE(static_cast<std::size_t>(x->dataCount()), run->rows());   // short: every row, in order
        QCOMPARE(x->data()->at(x->dataCount() - 1)->key, last[0].toDouble());
        QCOMPARE(lastValue(x), last[1].toDouble());
        QCOMPARE(lastValue(v), last[2].toDouble());
        QCOMPARE(lastValue(f), last[3].toDouble());
        QVERIFY(m_window->runStatus()->text().contains("Finished"));
        QVERIFY(!m_window->action("stop")->isEnabled());
        // the events of the run are marked on the time axis, and say what they are
        QVERIFY(plots().plot()->graphCount() > 5);
        const core::EventRecord& e = run->events().front();
        const QString tip = plots().subplot(1)->eventsNear(
            plots().subplot(1)->rect()->axis(QCPAxis::atBottom)->coordToPixel(e.time), 3);
        QVERIFY2(tip.contains("stops: ") && tip.contains(core::toString(e.kind)), qPrintable(tip));
    }

    void mouseCursorZoomAndFit() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QVERIFY(runAndWait());
        QCustomPlot* plot = plots().plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QRect area = plots().subplot(0)->rect()->rect();
        const QPointF at = area.center();
        QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(plot, &move);
        const double t = plots().subplot(0)->rect()->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
        QVERIFY(plots().subplot(1)->readoutItem()->visible());   // the cursor runs through every subplot
        QCOMPARE(plots().subplot(1)->readoutItem()->text(), plots().subplot(1)->readout(t));

        const QCPRange before = plots().timeRange();
        QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        const QCPRange zoomed = plots().timeRange();
        QVERIFY2(zoomed.size() < before.size() * 0.9,
                 qPrintable(QString("%1 -> %2").arg(before.size()).arg(zoomed.size())));
        QVERIFY(zoomed.contains(t));
        QVERIFY(!plots().autoScaling());
        QCOMPARE(plots().subplot(1)->rect()->axis(QCPAxis::atBottom)->range(), zoomed);   // linked
        QMouseEvent twice(QEvent::MouseButtonDblClick, at, plot->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton,
                          Qt::NoModifier);
        QApplication::sendEvent(plot, &twice);
        QVERIFY(plots().autoScaling());
        QCOMPARE(plots().timeRange(), QCPRange(0, 1.0));
    }

    void longResultIsDrawnThroughItsEnvelope() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        m_window->stopTimeEdit()->setText("3 s");
        Q_EMIT m_window->stopTimeEdit()->editingFinished();
        QCOMPARE(doc().model().simulation().stopTime, 3.0);
        QVERIFY(runAndWait());
        const gui::RunSeries* run = runs().current();
        QVERIFY(run->rows() > gui::Subplot::kRawLimit);
        QCPGraph* x = plots().subplot(0)->graph("stops.x", run->id());
        plots().plot()->replot(QCustomPlot::rpImmediateRefresh);
        const int width = plots().subplot(0)->rect()->width();
        QVERIFY2(x->dataCount() <= 4 * width + 8,
                 qPrintable(QString("%1 points, %2 px").arg(x->dataCount()).arg(width)));
        bool found = false;
        const QCPRange drawn = x->getValueRange(found);
        QVERIFY(found);
        const gui::MinMaxCache* cache = run->trace("stops.x");
        QCOMPARE(drawn.lower, cache->minimum());   // the envelope keeps the extremes
        QCOMPARE(drawn.upper, cache->maximum());
        QCOMPARE(lastValue(x), cache->values().back());
        // zoomed in, the visible part is drawn at full resolution
        plots().setTimeRange(QCPRange(1.0, 1.001));
        QVERIFY(!plots().autoScaling());
        plots().plot()->replot(QCustomPlot::rpImmediateRefresh);
        const auto [lo, hi] = gui::MinMaxCache::indexRange(run->time(), 1.0, 1.001);
        QCOMPARE(x->dataCount(), static_cast<int>(hi - lo + 2));
    }

    void pauseHoldsAndStopEndsTheRunKeepingItsRows() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QLineEdit* stop = m_window->stopTimeEdit();
        stop->setFocus();
        stop->selectAll();
        QTest::keyClicks(stop, "1000");
        QTest::keyClick(stop, Qt::Key_Return);
        QCOMPARE(doc().model().simulation().stopTime, 1000.0);
        QCOMPARE(doc().undoStack()->undoText(), QString("Stop time"));

        m_window->action("run")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(runs().current()->rows() > 100, 10000);
        QVERIFY(m_window->action("stop")->isEnabled());
        m_window->action("pause")->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(runs().current()->run().state(), core::simulation::RunState::Paused, 5000);
        QVERIFY(m_window->action("pause")->isChecked());
        const std::size_t rows = runs().current()->run().results().rows();
        QTest::qWait(100);
        QCOMPARE(runs().current()->run().results().rows(), rows);
        m_window->action("pause")->trigger();   // resume
        QTRY_VERIFY_WITH_TIMEOUT(runs().current()->run().results().rows() > rows, 5000);

        m_window->action("stop")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!runs().active(), 5000);
        const core::simulation::Run& run = runs().current()->run();
        QCOMPARE(run.state(), core::simulation::RunState::Stopped);
        QVERIFY2(run.stopLatency() >= 0,
                 qPrintable(test::num(run.stopLatency())));   // measured: the stop was requested
        QVERIFY(run.time() < 1000.0);
        plots().plot()->replot(QCustomPlot::rpImmediateRefresh);   // a long trace is drawn as an envelope at replot
        const QCPGraph* x = currentGraph(0, "stops.x");
        QVERIFY(x->dataCount() > 0);   // the partial result stays in the plot
        QCOMPARE(x->data()->at(x->dataCount() - 1)->key, run.results().lastTime());
        QVERIFY(m_window->runStatus()->text().contains("Stopped"));
    }

    void failedRunIsListedWithItsBlock() {
        doc().reset(test::modelFromJson(R"({"simulation": {"stop_time": 3.0},
          "blocks": [
            {"name": "push", "type": "signal.ramp", "parameters": {"slope": 1e300, "start_time": 0.5}},
            {"name": "fs", "type": "translational.force_source"},
            {"name": "m", "type": "translational.mass"},
            {"name": "g", "type": "translational.reference"}],
          "connections": [["push.y", "fs.S"], ["fs.R", "m.M"], ["fs.C", "g.R"]],
          "plots": [{"title": "m", "signals": ["m.v"]}]})"),
                    QString());
        QVERIFY(runAndWait());
        QCOMPARE(runs().current()->run().state(), core::simulation::RunState::Failed);
        QVERIFY(currentGraph(0, "m.v")->dataCount() > 0);   // what it computed stays
        QTreeWidget* list = m_window->diagnostics()->list();
        QVERIFY(list->topLevelItemCount() >= 1);
        QTreeWidgetItem* first = list->topLevelItem(0);
        QVERIFY2(first->text(0).startsWith("run"), qPrintable(first->text(0)));
        QVERIFY2(first->text(2).contains("t = "), qPrintable(first->text(2)));
        QVERIFY(first->text(2).contains("("));   // the hint
        const QString block = first->data(1, Qt::UserRole).toString();
        QVERIFY2(!block.isEmpty(), qPrintable(first->text(2)));
        Q_EMIT list->itemClicked(first, 1);
        QCOMPARE(m_window->scene()->selectedBlockNames(), QStringList{block});
        // the next run clears it
        m_window->action("run")->trigger();
        QVERIFY(m_window->diagnostics()->runDiagnostics().empty());
        QTRY_VERIFY_WITH_TIMEOUT(!runs().active(), 30000);
    }

    void solverSettingsGoThroughTheUndoStack() {
        QVERIFY(m_window->openFile(example("mass_spring_damper.endstop")));
        gui::SolverSettingsDialog dialog(doc(), m_window.get());
        dialog.field("relative_tolerance")->setText("abc");
        QVERIFY(!dialog.apply());
        QVERIFY(!dialog.fieldError("relative_tolerance")->text().isEmpty());   // next to its field
        QVERIFY(dialog.fieldError("stop_time")->text().isEmpty());
        dialog.field("relative_tolerance")->setText("2");
        QVERIFY(!dialog.apply());
        QVERIFY2(dialog.fieldError("relative_tolerance")->text().contains("(0, 1)"),
                 qPrintable(dialog.fieldError("relative_tolerance")->text()));
        dialog.field("relative_tolerance")->setText("1e-5");
        dialog.field("max_step")->setText("2 ms");
        dialog.field("output_interval")->setText("0.01");
        dialog.linearSolver()->setCurrentIndex(dialog.linearSolver()->findData("klu"));
        QVERIFY(dialog.apply());
        const core::model::SimulationSettings s = doc().model().simulation();
        QCOMPARE(s.relativeTolerance, 1e-5);
        QCOMPARE(s.maxStep, 0.002);
        QCOMPARE(s.outputInterval, 0.01);
        QCOMPARE(s.linearSolver, core::model::LinearSolver::Klu);
        QCOMPARE(doc().undoStack()->undoText(), QString("Solver settings"));
        doc().undoStack()->undo();
        QCOMPARE(doc().model().simulation().relativeTolerance, 1e-6);
        // a run uses them: rows on the output grid
        doc().undoStack()->redo();
        QVERIFY(runAndWait());
        QCOMPARE(runs().current()->rows(), std::size_t{201});
    }

    // The reduction is a setting of the model and on by default: the dialog's check box turns it
    // off (one undoable edit), the next run solves the network as drawn and records the same
    // variables; undo turns it on again
    void reduceIsASolverSetting() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QVERIFY(runAndWait());
        const core::RunStats reduced = runs().current()->run().stats();
        const std::size_t columns = runs().current()->run().results().columns().size();
        QVERIFY2(reduced.unknowns < reduced.unknownsBefore,
                 qPrintable(QString("%1 of %2 unknowns").arg(reduced.unknowns).arg(reduced.unknownsBefore)));
        // the run status's tooltip says what IDA solved and where the rest went (--stats)
        const QString tip = m_window->runStatus()->toolTip();
        const auto plural = [](int n, const char* one, const char* many) {
            return QString("%1 %2").arg(n).arg(n == 1 ? one : many);
        };
        QVERIFY2(tip.startsWith(QString("IDA solved %1 of the network's %2 unknowns; the reduction computes the other "
                                        "%3: %4, %5 explicit, %6")
                                    .arg(reduced.unknowns)
                                    .arg(reduced.unknownsBefore)
                                    .arg(reduced.unknownsBefore - reduced.unknowns)
                                    .arg(plural(reduced.aliases, "alias", "aliases"))
                                    .arg(reduced.explicitVariables)
                                    .arg(plural(reduced.quadratures, "quadrature", "quadratures"))),
                 qPrintable(tip));
        QVERIFY2(tip.contains(plural(static_cast<int>(reduced.reinits), "restart", "restarts") + ", "),
                 qPrintable(tip));
        gui::SolverSettingsDialog dialog(doc(), m_window.get());
        QVERIFY(dialog.reduce()->isChecked());
        dialog.reduce()->click();
        QVERIFY(dialog.apply());
        QVERIFY(!doc().model().simulation().reduce);
        QCOMPARE(doc().undoStack()->undoText(), QString("Solver settings"));
        QVERIFY(runAndWait());
        const core::RunStats drawn = runs().current()->run().stats();
        QCOMPARE(drawn.unknowns, drawn.unknownsBefore);
        QVERIFY2(m_window->runStatus()->toolTip().startsWith(
                     QString("IDA solved all %1 of the network's unknowns.").arg(drawn.unknownsBefore)),
                 qPrintable(m_window->runStatus()->toolTip()));
        QCOMPARE(drawn.unknownsBefore, reduced.unknownsBefore);
        QCOMPARE(runs().current()->run().results().columns().size(), columns);
        QCOMPARE(drawn.events, reduced.events);
        doc().undoStack()->undo();
        QVERIFY(doc().model().simulation().reduce);
        QVERIFY(gui::SolverSettingsDialog(doc(), m_window.get()).reduce()->isChecked());
    }

    void cursorReadsEveryTrace() {
        QVERIFY(m_window->openFile(example("mass_spring_damper.endstop")));
        QVERIFY(runAndWait());
        plots().showCursor(0.75);
        const QString text = plots().subplot(0)->readout(0.75);
        const double x = runs().current()->valueAt("mass1.x", 0.75);
        QVERIFY2(text.contains("t = 0.75 s"), qPrintable(text));
        QVERIFY2(text.contains(QString("mass1.x [m] = %1").arg(QString::number(x, 'g', 6))), qPrintable(text));
        QVERIFY(text.contains("mass1.v [m/s] = "));
        QCOMPARE(plots().subplot(0)->readoutItem()->text(), text);
        QVERIFY(plots().subplot(0)->readoutItem()->visible());
        plots().hideCursor();
        QVERIFY(!plots().subplot(0)->readoutItem()->visible());
    }

    void exportWritesPngPdfAndCsv() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QVERIFY(runAndWait());
        const QString png = m_dir.filePath("plot.png"), pdf = m_dir.filePath("plot.pdf"),
                      csv = m_dir.filePath("plot.csv");
        QVERIFY(plots().exportImage(png, 800, 500));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(800, 500));
        QVERIFY(plots().exportImage(pdf));
        QFile p(pdf);
        QVERIFY(p.open(QIODevice::ReadOnly));
        QVERIFY(p.read(4) == "%PDF");
        QVERIFY(plots().exportCsv(csv));
        QFile c(csv);
        QVERIFY(c.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(c.readAll()).trimmed().split('\n');
        QCOMPARE(lines.front(), QString("time,stops.x,stops.v,stops.f,stops.penetration,stops.energy_dissipated"));
        const core::simulation::ResultBuffer& r = runs().current()->run().results();
        QCOMPARE(static_cast<std::size_t>(lines.size()), r.rows() + 1);
        const QStringList last = lines.back().split(',');
        QCOMPARE(last[0].toDouble(), r.lastTime());
        QCOMPARE(last[1].toDouble(), r.value(r.rows() - 1, r.columnIndex("stops.x")));
        QCOMPARE(last[5].toDouble(), r.value(r.rows() - 1, r.columnIndex("stops.energy_dissipated")));
    }

    void previousRunsAreKeptPinnedAndCleared() {
        QVERIFY(m_window->openFile(example("mass_spring_damper.endstop")));
        std::vector<int> ids;
        for (int i = 0; i < 4; ++i) {
            QVERIFY(runAndWait());
            ids.push_back(runs().current()->id());
        }
        QCOMPARE(runs().keepRuns(), 3);
        QCOMPARE(runs().previous().size(), std::size_t{3});   // newest first
        QCOMPARE(runs().previous().front()->id(), ids[2]);
        QVERIFY(plots().subplot(0)->graph("mass1.x", ids[0]) &&
                plots().subplot(0)->graph("mass1.x", ids[0])->dataCount() > 0);
        runs().setPinned(ids[0], true);
        runs().setKeepRuns(1);
        QCOMPARE(runs().previous().size(), std::size_t{2});   // the newest one and the pinned one
        QVERIFY(runs().find(ids[0]) && runs().find(ids[2]) && !runs().find(ids[1]));
        QVERIFY(!plots().subplot(0)->graph("mass1.x", ids[1]));
        runs().clearPrevious();
        QCOMPARE(runs().previous().size(), std::size_t{1});
        QCOMPARE(runs().previous().front()->id(), ids[0]);
        QCOMPARE(plots().subplot(0)->graphCount(), 2 * 2);   // two signals, two runs (the markers are separate graphs)
    }

    void largeModelsRecordOnlyThePlottedSignals() {
        core::model::Model big;
        for (int i = 0; i < 60; ++i) {   // 60 stops of 7 recorded variables each
            core::model::BlockSpec b;
            b.name = "stop" + std::to_string(i);
            b.type = "translational.hard_stop";
            big.apply(core::model::AddBlock{b});
        }
        QVERIFY(gui::RunController::recordingFor(big, blocks::registry()).signals.size() ==
                1);   // the time and one column
        big.apply(core::model::SetPlots{{{"p", {"stop3.f", "stop7.x", "stop3.f", "nope.x"}}}});
        QCOMPARE(gui::RunController::recordingFor(big, blocks::registry()).signals,
                 (std::vector<std::string>{"stop3.f", "stop7.x"}));
        const core::model::Model small = test::loadExample("rattling_mass.endstop");
        QVERIFY(gui::RunController::recordingFor(small, blocks::registry()).signals.empty());   // everything
    }

    void plotSetupSurvivesSaveAndOpen() {
        QVERIFY(m_window->openFile(example("mass_spring_damper.endstop")));
        QCOMPARE(plots().subplotCount(), 1);
        // the signal browser: double-click plots into the selected subplot
        QTreeWidgetItem* item = m_window->signalBrowser()->itemFor("spring1.f");
        QVERIFY(item);
        Q_EMIT m_window->signalBrowser()->tree()->itemActivated(item, 0);
        QCOMPARE(doc().model().plots()[0].signals, (std::vector<std::string>{"mass1.x", "mass1.v", "spring1.f"}));
        // a new subplot, then the canvas's Plot menu for a block fills it
        plots().toolBar()->actions().front()->trigger();
        QCOMPARE(plots().subplotCount(), 2);
        QCOMPARE(plots().selectedSubplot(), 1);
        QMenu menu;
        m_window->addBlockMenus(&menu, "damper1");
        auto* plotMenu = menu.findChild<QMenu*>("plotMenu");
        QVERIFY(plotMenu);
        QAction* power = nullptr;
        for (QAction* a : plotMenu->actions())
            if (a->data().toString() == "damper1.power") power = a;
        QVERIFY(power);
        power->trigger();
        plots().renameSubplot(1, "Damper");
        const std::vector<core::model::PlotSpec> expected{{"Mass", {"mass1.x", "mass1.v", "spring1.f"}},
                                                          {"Damper", {"damper1.power"}}};
        QCOMPARE(doc().model().plots(), expected);
        QVERIFY(plots().subplot(1)->graph("damper1.power", 0));   // not run yet: an empty trace in the legend
        QVERIFY(runAndWait());
        QVERIFY(runs().current());

        const QString path = m_dir.filePath("plots.endstop");
        QVERIFY(m_window->saveTo(path));
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QVERIFY(!runs().current());   // the runs belonged to the other document
        QVERIFY(m_window->openFile(path));
        QCOMPARE(doc().model().plots(), expected);
        QCOMPARE(plots().subplotCount(), 2);
        QCOMPARE(plots().subplot(1)->signalNames(), std::vector<std::string>{"damper1.power"});
        QVERIFY(runAndWait());
        QVERIFY(currentGraph(1, "damper1.power")->dataCount() > 0);
        QCOMPARE(plots().subplot(1)->rect()->axis(QCPAxis::atLeft)->label(), QString("[W]"));

        // each change was one undo step
        plots().removeSignal(0, "spring1.f");
        QCOMPARE(doc().model().plots()[0].signals.size(), std::size_t{2});
        doc().undoStack()->undo();
        QCOMPARE(doc().model().plots(), expected);
        QCOMPARE(plots().subplot(0)->signalNames().size(), std::size_t{3});
    }
};

QTEST_MAIN(TestPlots)
#include "tst_plots.moc"
