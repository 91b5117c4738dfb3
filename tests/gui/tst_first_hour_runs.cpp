// SPDX-License-Identifier: GPL-3.0-or-later
// The first hour's runs, through the window (offscreen): results are marked out of date after an
// edit and current again after its undo; a failed run's findings leave once the model is changed
// and a structural error is listed once; a missing reference is reported as such; a position and
// a force in one subplot each get their own value axis; a position entered in mm is plotted, read
// out and exported in mm (SI on request); legend and read-out stay off the data; the drive-train
// example plots its clutch's modes and marks its engagement and locks.
#include "blocks/registry.hpp"
#include "gui/block_item.hpp"
#include "gui/diagnostics_panel.hpp"
#include "gui/main_window.hpp"
#include "gui/param_form.hpp"
#include "gui/plot_panel.hpp"
#include "gui/property_panel.hpp"
#include "gui/run_controller.hpp"
#include "gui/subplot.hpp"
#include "gui/tuning_panel.hpp"
#include "gui/tuning_row.hpp"
#include "gui_test_support.hpp"
#include "support/compare.hpp"
#include "support/test_support.hpp"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSlider>
#include <QThreadPool>
#include <QToolBar>
#include <QTreeWidget>
#include <QUndoStack>

#include <set>

using namespace endstop;

namespace {

// a force source whose C end was never grounded
const char* kNoReference = R"({"blocks": [
    {"name": "k", "type": "signal.constant"}, {"name": "src", "type": "translational.force_source"},
    {"name": "m", "type": "translational.mass"}, {"name": "s", "type": "translational.spring"},
    {"name": "g", "type": "translational.reference"}],
  "connections": [["k.y", "src.S"], ["src.R", "m.M"], ["m.M", "s.R"], ["s.C", "g.R"]]})";

QStringList rows(const QTreeWidget* list) {
    QStringList out;
    for (int i = 0; i < list->topLevelItemCount(); ++i)
        out << list->topLevelItem(i)->text(0) + " | " + list->topLevelItem(i)->text(2);
    return out;
}

}   // namespace

class TestFirstHourRuns : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_settings;
    QTemporaryDir m_dir;
    std::unique_ptr<gui::MainWindow> m_window;
    gui::Document& doc() const { return m_window->document(); }
    gui::RunController& runs() const { return *m_window->runs(); }
    gui::PlotPanel& plots() const { return *m_window->plots(); }
    gui::DiagnosticsPanel& diagnostics() const { return *m_window->diagnostics(); }
    QString example(const char* name) const { return test::sourcePath(QStringLiteral("resources/examples/") + name); }

    bool runAndWait() {
        m_window->action("run")->trigger();
        return QTest::qWaitFor([this] { return !runs().active(); }, 30000);
    }
    bool validated() {
        diagnostics().validateNow();
        return QTest::qWaitFor([this] { return !diagnostics().busy(); }, 10000);
    }
    // types into a field of the Properties dock and presses Return, as a user edits a value
    void editInProperties(const QString& block, const QString& key, const QString& text) {
        m_window->scene()->selectBlocks({block});
        QApplication::processEvents();
        QLineEdit* edit = m_window->properties()->form()->findChild<QLineEdit*>(key);
        QVERIFY(edit);
        edit->setFocus();   // as a click into the field gives it
        edit->selectAll();
        QTest::keyClicks(edit, text);
        QTest::keyClick(edit, Qt::Key_Return);
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

    // 4. an edit marks the plotted run out of date, its undo makes it current again
    void resultsAreMarkedOutOfDateAfterAnEdit() {
        QVERIFY(m_window->openFile(example("mass_spring_damper.endstop")));
        QVERIFY(runAndWait());
        QVERIFY(plots().staleBanner()->isHidden());
        QVERIFY(!m_window->runStatus()->text().contains("Out of date"));

        m_window->scene()->selectBlocks({"mass1"});
        m_window->scene()->rotateSelection(90);   // layout only: the results still hold
        QVERIFY(plots().staleBanner()->isHidden());

        editInProperties("mass1", "mass", "3");
        QCOMPARE(std::get<double>(doc().model().find("mass1")->params.at("mass")), 3.0);
        QVERIFY(!plots().staleBanner()->isHidden());
        QVERIFY2(m_window->runStatus()->text().contains("Out of date"), qPrintable(m_window->runStatus()->text()));

        m_window->action("undo")->trigger();   // back to the model that was run
        QVERIFY(plots().staleBanner()->isHidden());
        QVERIFY(!m_window->runStatus()->text().contains("Out of date"));
        m_window->action("redo")->trigger();
        QVERIFY(!plots().staleBanner()->isHidden());
        QVERIFY(runAndWait());
        QVERIFY(plots().staleBanner()->isHidden());
    }

    // 4. a tuned value, kept on release and then undone: the plotted run is the tuned one
    void undoingATunedValueMarksTheTunedRunOutOfDate() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QVERIFY(runAndWait());
        QMenu menu;
        m_window->addBlockMenus(&menu, "stops");
        auto* tune = menu.findChild<QMenu*>("tuneMenu");
        QVERIFY(tune);
        for (QAction* a : tune->actions())
            if (a->data().toString() == "upper_bound") a->trigger();
        gui::TuningRow* row = m_window->tuning()->row("stops", "upper_bound");
        QVERIFY(row);
        row->slider()->setSliderDown(true);
        row->slider()->setValue(gui::TuningRow::kSteps * 3 / 4);
        QVERIFY(QTest::qWaitFor([this] { return !runs().active(); }, 30000));
        QVERIFY(plots().staleBanner()->isHidden());   // a tuning preview is not out of date
        row->slider()->setSliderDown(false);          // release: kept, one undo step
        QVERIFY(plots().staleBanner()->isHidden());
        m_window->action("undo")->trigger();
        QVERIFY(!plots().staleBanner()->isHidden());
        QVERIFY(m_window->runStatus()->text().startsWith("Out of date"));
    }

    // 5. a failed run's rows and red frames go once the model is changed
    void runFindingsLeaveWhenTheModelChanges() {
        doc().reset(test::modelFromJson(R"({"simulation": {"stop_time": 3.0},
          "blocks": [
            {"name": "push", "type": "signal.ramp", "parameters": {"slope": 1e300, "start_time": 0.5}},
            {"name": "fs", "type": "translational.force_source"},
            {"name": "m", "type": "translational.mass"},
            {"name": "g", "type": "translational.reference"}],
          "connections": [["push.y", "fs.S"], ["fs.R", "m.M"], ["fs.C", "g.R"]]})"),
                    QString());
        QVERIFY(runAndWait());
        QCOMPARE(runs().current()->run().state(), core::simulation::RunState::Failed);
        QVERIFY(!diagnostics().runDiagnostics().empty());
        // the counts are the model check's, said so: "0 errors" beside a run error misread
        QCOMPARE(diagnostics().summary()->text(),
                 QString("The last run failed (the run error below says why). Model check: no problems."));
        const QString block = QString::fromStdString(diagnostics().runDiagnostics().front().block);
        QVERIFY(m_window->scene()->blockItem(block)->hasError());

        editInProperties("push", "slope", "1");   // the fix
        QVERIFY(diagnostics().runDiagnostics().empty());
        QVERIFY(validated());
        for (const QString& r : rows(diagnostics().list())) QVERIFY2(!r.startsWith("run"), qPrintable(r));
        QVERIFY(!m_window->scene()->blockItem(block)->hasError());
        QVERIFY(runAndWait());
        QCOMPARE(runs().current()->run().state(), core::simulation::RunState::Finished);
        // the panel's summary speaks of the run that finished, and of the model once it changes
        const QString finished = runs().current()->label + " finished without problems.";
        QCOMPARE(diagnostics().summary()->text(), finished);
        editInProperties("push", "slope", "2");
        QVERIFY(validated());
        QCOMPARE(diagnostics().summary()->text(), QString("Ready to simulate."));
    }

    // 5 and 6. a structural error is listed once, and says what is missing
    void aMissingReferenceIsListedOnceWithTheRightAdvice() {
        doc().reset(test::modelFromJson(kNoReference), QString());
        QVERIFY(validated());
        QVERIFY(runAndWait());
        QCOMPARE(runs().current()->run().state(), core::simulation::RunState::Failed);
        QVERIFY(validated());
        const QStringList list = rows(diagnostics().list());
        QCOMPARE(list.filter("no reference").size(), 1);
        QVERIFY2(list.filter("no reference").front().contains("connect src.C to a Reference (ground)"),
                 qPrintable(list.join('\n')));
        QVERIFY2(list.filter("remove one of them").isEmpty(), qPrintable(list.join('\n')));
        QVERIFY(m_window->scene()->blockItem("src")->hasError());
        // the whole message, wrapped, in the details pane
        QTreeWidget* tree = diagnostics().list();
        tree->setCurrentItem(tree->topLevelItem(list.indexOf(list.filter("no reference").front())));
        QVERIFY(diagnostics().details()->isVisibleTo(&diagnostics()));
        QVERIFY(diagnostics().details()->wordWrap());
        QVERIFY(diagnostics().details()->text().contains(
            "connect src.C to a Reference (ground) or to what it acts against"));
    }

    // 7. a force added to a position subplot gets its own axis; neither is squashed
    void eachUnitHasItsOwnValueAxis() {
        QVERIFY(m_window->openFile(example("mass_spring_damper.endstop")));
        QVERIFY(plots().addSignal("spring1.f", 0));
        QVERIFY(runAndWait());
        const gui::Subplot* s = plots().subplot(0);
        QCOMPARE(s->valueAxes().size(), std::size_t(3));   // m, m/s and N
        const int id = runs().current()->id();
        QCPAxis* position = s->graph("mass1.x", id)->valueAxis();
        QCPAxis* force = s->graph("spring1.f", id)->valueAxis();
        QVERIFY(position != force);
        QCOMPARE(position->label(), QString("[m]"));
        QCOMPARE(force->label(), QString("[N]"));
        QVERIFY(force->visible() && force->tickLabels());
        QCOMPARE(s->graph("mass1.v", id)->valueAxis()->label(), QString("[m/s]"));
        // each axis spans its own traces: the position fills its axis, not a sliver of it
        const QCPRange x = s->valueRange(plots().timeRange(), position);
        QVERIFY(x.size() > 0.5 * position->range().size());
        const QCPRange f = s->valueRange(plots().timeRange(), force);
        QVERIFY(f.size() > 0.5 * force->range().size());
    }

    // legend and cursor read-out sit above the data, never over it; an exported picture does not
    // carry the selected subplot's colour
    void plotDecorationsStayOffTheData() {
        QVERIFY(m_window->openFile(example("rattling_mass.endstop")));
        QVERIFY(runAndWait());
        plots().selectSubplot(0);
        plots().showCursor(0.5);
        plots().plot()->replot(QCustomPlot::rpImmediateRefresh);
        for (int i = 0; i < plots().subplotCount(); ++i) {
            const gui::Subplot* s = plots().subplot(i);
            const QRect data = s->rect()->rect();
            QVERIFY(s->legend()->visible());
            QVERIFY(!s->legend()->outerRect().intersects(data));
            QVERIFY(s->readoutItem()->visible());
            QVERIFY2(s->readoutItem()->position->pixelPosition().y() < data.top(), "the read-out is above the data");
        }
        const QColor selected = plots().subplot(0)->title()->textColor();
        QVERIFY(plots().exportImage(m_dir.filePath("plain.png"), 800, 500));
        QCOMPARE(plots().subplot(0)->title()->textColor(), selected);   // the window keeps its selection
        const auto hasSelectedTitle = [](const QImage& image) {         // its colour, rgb(25, 90, 170)
            for (int y = 0; y < 60; ++y)
                for (int x = 0; x < 300; ++x)
                    if (image.pixelColor(x, y) == QColor(25, 90, 170)) return true;
            return false;
        };
        QVERIFY(hasSelectedTitle(plots().plot()->toPixmap(800, 500).toImage()));   // on screen it is there
        QVERIFY(!hasSelectedTitle(QImage(m_dir.filePath("plain.png"))));
    }

    // 8. the unit chosen for the mass's initial position is the unit its position is plotted,
    //    read out and exported in; SI on request
    void plotsUseTheDisplayUnit() {
        QVERIFY(m_window->openFile(example("mass_spring_damper.endstop")));
        m_window->scene()->selectBlocks({"mass1"});
        QApplication::processEvents();
        QComboBox* unit = m_window->properties()->form()->unitBox("initial_position");
        QVERIFY(unit);
        unit->setCurrentIndex(unit->findText("mm"));
        QCOMPARE(doc().model().find("mass1")->ui.displayUnits.at("initial_position"), std::string("mm"));
        QVERIFY(runAndWait());
        const gui::Subplot* s = plots().subplot(0);
        const QCPGraph* g = s->graph("mass1.x", runs().current()->id());
        QCOMPARE(g->valueAxis()->label(), QString("[mm]"));
        const core::simulation::ResultBuffer& r = runs().current()->run().results();
        const double last = r.value(r.rows() - 1, r.columnIndex("mass1.x"));
        QCOMPARE_NEAR(g->data()->at(g->dataCount() - 1)->value, 1000 * last, 1e-9 * std::abs(1000 * last) + 1e-12);
        const double t = r.lastTime();
        QVERIFY2(s->readout(t).contains("mass1.x [mm] = "), qPrintable(s->readout(t)));

        const QString csv = m_dir.filePath("mm.csv");
        QVERIFY(plots().exportCsv(csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).trimmed().split('\n');
        QCOMPARE(lines.front(), QString("time,mass1.x [mm],mass1.v"));
        QCOMPARE_NEAR(lines.back().split(',')[1].toDouble(), 1000 * last, 1e-9 * std::abs(1000 * last) + 1e-12);

        QAction* si = plots().toolBar()->findChild<QAction*>("plotSiUnits");
        QVERIFY(si);
        si->trigger();
        QVERIFY(plots().siUnits());
        QCOMPARE(plots().subplot(0)->graph("mass1.x", runs().current()->id())->valueAxis()->label(), QString("[m]"));
        QVERIFY(plots().exportCsv(csv));
        QFile again(csv);
        QVERIFY(again.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(again.readLine()).trimmed(), QString("time,mass1.x,mass1.v"));
        si->trigger();   // the choice is remembered: leave it off for the next test
    }

    // 9. the drive-train example: its three plots fill, the clutch's mode trace says when it is
    //    free (2), sliding (1) and locked (0), and the markers tell the engagement and the locks
    void driveTrainShowsTheClutchModes() {
        QVERIFY(m_window->openFile(example("drive_train.endstop")));
        QVERIFY(runAndWait());
        QCOMPARE(plots().subplotCount(), 3);
        const gui::Subplot* clutch = plots().subplot(2);
        const QCPGraph* mode = clutch->graph("clutch.mode", runs().current()->id());
        QVERIFY(mode);
        QVERIFY2(QTest::qWaitFor([&] { return mode->dataCount() > 20; }, 5000),
                 qPrintable(QString::number(mode->dataCount())));
        std::set<double> seen;
        for (int i = 0; i < mode->dataCount(); ++i) seen.insert(mode->data()->at(i)->value);
        QVERIFY2(seen.count(2.0) && seen.count(1.0) && seen.count(0.0), "free, sliding forward and locked all plotted");
        const auto atTime = [&](double t) {
            const QCPAxis* x = clutch->graph("clutch.t", runs().current()->id())->keyAxis();
            return clutch->eventsNear(x->coordToPixel(t), 1.0);
        };
        QVERIFY2(atTime(0.5).contains("clutch: engage"), qPrintable(atTime(0.5)));
        double firstLock = -1;
        for (const core::EventRecord& e : runs().current()->events())
            if (e.block == "clutch" && e.kind == core::EventKind::Lock) {
                firstLock = e.time;
                break;
            }
        QVERIFY(firstLock > 0.5);
        QVERIFY2(atTime(firstLock).contains("clutch: lock"), qPrintable(atTime(firstLock)));
        QVERIFY2(clutch->readout(2.0).contains("clutch.mode = 0"), qPrintable(clutch->readout(2.0)));
    }
};

QTEST_MAIN(TestFirstHourRuns)
#include "tst_first_hour_runs.moc"
